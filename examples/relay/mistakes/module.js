// Planted: a module Relay does not have (`relay/net` is meant).
import * as net from "relay/nett";

export default function () {
  net.get("http://hub.local/ping");
}
