// grounded: file — lib/missing.js does not exist in the project (line 4)
// loadJS takes a path relative to the project folder; the file was never written.
var title = "Report";
loadJS("lib/missing.js");
layout.heading(title, 1);
