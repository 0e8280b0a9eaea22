// grounded: engine — Object.keys does not exist in ECMAScript 3 (line 4)
// Under ES3, collect the keys with a for-in loop and hasOwnProperty instead.
var totals = { north: 120, south: 95 };
var regions = Object.keys(totals);
layout.paragraph("Regions: " + regions.join(", "));
