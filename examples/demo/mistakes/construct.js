// grounded: construct — tableStart has no matching tableEnd (line 6; a warning)
// Without tableEnd the paragraph below becomes part of the table.
var stock = new Table();
stock.columns = 2;
stock.caption = "Stock";
layout.tableStart(stock, { cellPadding: 3 });
layout.tableRow();
layout.tableCell("Toner");
layout.tableCell("12");
layout.paragraph("Stock counted on Monday.");
