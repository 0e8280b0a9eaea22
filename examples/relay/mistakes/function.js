// Planted: `rooms` is declared in lib/rooms.js, which this script does not import;
// Relay scripts run alone, so it is not there.
export default function () {
  return rooms();
}
