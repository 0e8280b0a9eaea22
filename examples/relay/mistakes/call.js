import { find } from "relay/devices";

export default function () {
  // Planted: `find` returns a `Device`, which has `turnOn`, not `switchOn`.
  find("hall").switchOn();
}
