// grounded: option — BlockStyle has no key borderColour (line 4)
// The documented key is borderColor; an unknown key is silently ignored by Folio.
var box = new Block();
layout.blockStart(box, { backgroundColor: "#eeeeee", borderColour: "red", borderWidth: 1 });
layout.paragraph("Prices do not include shipping.");
layout.blockEnd();
