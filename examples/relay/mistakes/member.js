// Planted: a named import the module does not export (`check` is meant).
import { chek } from "relay";

export default function () {
  chek(true, "always");
}
