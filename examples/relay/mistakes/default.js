import devices from "relay/devices";

export default function () {
  // Planted: the default export is a `DeviceHub`, which has `device`, not `devise`.
  devices.devise("hall").turnOn();
}
