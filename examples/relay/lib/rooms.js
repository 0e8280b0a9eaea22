// A project file imported by main.js: what it exports is what main.js binds.
import { log } from "relay";

export const LIVING = "living";

export function rooms() {
  log("listing rooms");
  return [LIVING, "kitchen"];
}
