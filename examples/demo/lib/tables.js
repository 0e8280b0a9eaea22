// The tables of the demo report: orders read from XML, prices read from CSV.
// This file uses formatMoney and trimText, so it loads the helpers itself.
loadJS("lib/helpers.js");

// The month the orders file covers, from the root element's attribute.
function ordersMonth() {
    var doc = xml.load("data/orders.xml");
    return doc.documentElement.getAttribute("month");
}

// Reads the orders into an array of plain objects.
function readOrders() {
    var doc = xml.load("data/orders.xml");
    var nodes = doc.selectNodes("/orders/order");
    var orders = [];
    for (var i = 0; i < nodes.length; i++) {
        var node = nodes.item(i);
        orders.push({
            id: node.selectSingleNode("id").textContent,
            customer: trimText(node.selectSingleNode("customer").textContent),
            total: parseFloat(node.selectSingleNode("total").textContent)
        });
    }
    return orders;
}

// Lays out the orders table with a total row; returns the number of orders.
function ordersTable() {
    var orders = readOrders();
    var table = new Table();
    table.columns = 3;
    table.columnWidths = [80, 260, 100];
    table.caption = "Orders of the month";
    layout.tableStart(table, {
        cellPadding: 4,
        gridColor: "#bbbbbb",
        stripeColor: "#f4f4f4",
        repeatHeader: true
    });
    layout.tableHeader(["Order", "Customer", "Total"]);
    var sum = 0;
    for (var i = 0; i < orders.length; i++) {
        layout.tableRow();
        layout.tableCell(orders[i].id);
        layout.tableCell(orders[i].customer);
        layout.tableCell(formatMoney(orders[i].total), { align: "decimal" });
        sum = sum + orders[i].total;
    }
    layout.tableRow({ backgroundColor: "#eeeeee" });
    layout.tableCell("Total", { colSpan: 2, align: "right" });
    layout.tableCell(formatMoney(sum), { align: "decimal" });
    layout.tableEnd();
    return orders.length;
}

// Lays out the price list read from the CSV file.
function pricesTable() {
    var reader = data.openCsv("data/prices.csv");
    var rows = reader.readAll();
    reader.close();
    var table = new Table();
    table.columns = 3;
    layout.tableStart(table, { cellPadding: 3, gridWidth: 0.25 });
    layout.tableHeader(["Item", "Unit", "Price"]);
    for (var r = 0; r < rows.length; r++) {
        layout.tableRow();
        layout.tableCell(rows[r][0]);
        layout.tableCell(rows[r][1]);
        layout.tableCell(formatMoney(parseFloat(rows[r][2])), { align: "decimal" });
    }
    layout.tableEnd();
}
