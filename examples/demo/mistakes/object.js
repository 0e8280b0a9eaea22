// grounded: object — engine is declared nowhere (line 4)
// Folio has no "engine" object: XML files are read with xml.load().
var title = "Orders";
var doc = engine.loadXML("data/orders.xml");
layout.heading(title, 2);
print(doc);
