// Helper functions shared by the demo scripts.
// Loaded by main.js and by lib/tables.js with loadJS("lib/helpers.js").
// Every function here only declares: loading the file twice is harmless.

// Formats a number with two decimals, as tables and totals show money.
function formatMoney(value) {
    return value.toFixed(2);
}

// Removes white space at both ends (String.prototype.trim is ES5, not ES3).
function trimText(text) {
    return text.replace(/^\s+|\s+$/g, "");
}

// Sets up the page template: margins, running header and page numbers.
function setupPages(title) {
    var base = layout.defaultTemplate;
    base.setMargins(56, 48, 56, 48);
    base.header.height = 20;
    base.footer.height = 20;
    layout.setHeader(title, { fontSize: 8, color: "#666666" });
    layout.setFooter("Page {page} of {pages}", { fontSize: 8, align: "center" });
}

// A section heading that stays on the page of what follows it.
function sectionHeading(title) {
    var heading = layout.heading(title, 2);
    heading.keepWithNext = true;
    return heading;
}

// A grey note box holding a bold title and one paragraph per line.
function noteBlock(title, lines) {
    var box = new Block();
    box.name = "note";
    box.keepTogether = true;
    layout.blockStart(box, {
        backgroundColor: "#f4f6f8",
        borderColor: "#c8ccd0",
        borderWidth: 0.5,
        padding: 6,
        marginBottom: 8
    });
    layout.paragraph(title, { bold: true });
    for (var i = 0; i < lines.length; i++) {
        layout.paragraph(lines[i]);
    }
    layout.blockEnd();
}

// A bulleted list with one item per string.
function bulletList(items) {
    var list = new List();
    layout.listStart(list, { bullet: "-", indent: 12, itemSpacing: 2 });
    for (var i = 0; i < items.length; i++) {
        layout.listItem(items[i]);
    }
    layout.listEnd();
}
