// grounded: syntax — const does not exist in ECMAScript 3 (line 4)
// Folio's script host is ES3: declare with var.
var net = 100;
const VAT_RATE = 0.2;
layout.paragraph("Gross: " + (net * (1 + VAT_RATE)).toFixed(2));
