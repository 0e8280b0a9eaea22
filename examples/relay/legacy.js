// CommonJS, as older Relay scripts are written; silent under `grounded check`.
const { find } = require("relay/devices");
const net = require("relay/net");
const status = require("relay/net").get("http://hub.local/ping").status;

module.exports = function () {
  find("porch").turnOn();
  return net.post("http://hub.local/log", "on").body + status;
};
exports.name = "legacy";
