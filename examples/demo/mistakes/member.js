// grounded: member — layout.tableCellEnd does not exist (line 8)
// Rows and cells close implicitly in Folio: deleting the call loses nothing.
var prices = new Table();
prices.columns = 2;
layout.tableStart(prices, { cellPadding: 3 });
layout.tableRow();
layout.tableCell("Toner");
layout.tableCellEnd();
layout.tableCell("38.00", { align: "right" });
layout.tableEnd();
