import * as net from "relay/net";

export default function () {
  // Planted: a member the module object lacks (`get` is meant).
  net.gett("http://hub.local/ping");
}
