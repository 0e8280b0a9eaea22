// Planted: a relative import naming no file (`./../lib/rooms.js` is meant).
import { rooms } from "../lib/room.js";

export default function () {
  return rooms();
}
