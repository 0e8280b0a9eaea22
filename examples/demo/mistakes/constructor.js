// grounded: constructor — ActiveXObject is defined by neither the docs nor ECMAScript (line 4)
// Folio is not Internet Explorer: XML is parsed with xml.parse() or xml.load().
var source = "<orders></orders>";
var parser = new ActiveXObject("Microsoft.XMLDOM");
parser.loadXML(source);
print(parser);
