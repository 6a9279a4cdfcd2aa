// A command of the core's table is used by name, typed by the generated Commands, with nothing
// written for it in the Backend interface, the Tauri adapter or the fake.
import { describe, expect, it } from "vitest";
import { FakeBackend } from "./fake";

describe("a command used by name", () => {
  it("is refused by the fake until a test fakes it, then answers as the table types it", async () => {
    const b = new FakeBackend();
    await expect(b.invoke("config_path", {})).rejects.toMatchObject({ code: "not_supported" });
    b.faked.set("config_path", () => "/home/me/.config/switchboard/config.json");
    const path: string = await b.invoke("config_path", {});
    expect(path).toBe("/home/me/.config/switchboard/config.json");
    expect(b.calls.at(-1)).toEqual({ method: "invoke", args: ["config_path", {}] });
  });
});
