// grounded: dry-run — Table has no member cellSpacing (line 6; dry-run only: the static check does not judge the parameter "grid", the dry run sees the Table passed to it)
// The documented way to space cells is the style key cellPadding of layout.tableStart.
// Nothing else in this file is wrong.
function configure(grid) {
    grid.columns = 2;
    grid.cellSpacing = 2;
}
var stock = new Table();
configure(stock);
layout.tableStart(stock, { cellPadding: 3 });
layout.tableRow();
layout.tableCell("Toner");
layout.tableCell("12");
layout.tableEnd();
