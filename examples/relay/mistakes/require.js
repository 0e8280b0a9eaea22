// Planted: a destructured name the module lacks (`find` is meant).
const { fnd } = require("relay/devices");

module.exports = function () {
  fnd("porch").turnOn();
};
