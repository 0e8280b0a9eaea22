// Every form of import Relay scripts use; silent under `grounded check`.
import "relay";
import devices from "relay/devices";
import { find, hub as house } from "relay/devices";
import * as net from "relay/net";
import { log, check as expect } from "relay";
import { rooms, LIVING } from "./lib/rooms.js";
import chunk from "lodash/chunk";
import { remote } from "https://cdn.example/remote.js";

export function setup() {
  log("rooms: " + rooms().length + " " + house.count);
}

export default function () {
  const lamp = devices.device(LIVING);
  lamp.turnOn();
  lamp.level = 40;
  const fan = find("fan");
  fan.turnOff();
  const res = net.get("http://hub.local/ping");
  expect(res.status === 200, "hub answers");
  log(chunk([1, 2, 3], 2).length + " " + remote);
}

export function teardown() {
  find("fan").turnOn();
}
