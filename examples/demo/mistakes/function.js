// grounded: function — loadXMLData is defined nowhere (line 4)
// Neither the docs nor the project define it: xml.load() is the documented way.
var title = "Orders";
var doc = loadXMLData("data/orders.xml");
layout.heading(title, 2);
print(doc);
