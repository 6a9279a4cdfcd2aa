// The server form's sandbox section: on or off, its network (on, off, or listed hosts), and the
// paths it may read or write beyond the default profile. What it saves is the config's `sandbox`
// setting; an untouched default stays unwritten, so a definition's digest only changes when the
// box does.
import type { SandboxProfile } from "../../bindings/SandboxProfile";
import type { SandboxSetting } from "../../bindings/SandboxSetting";
import { lines } from "./text-lines";
import { Choice } from "../../components/choice";

type Network = "on" | "off" | "hosts";

export interface SandboxFieldsState {
  on: boolean;
  network: Network;
  hosts: string;
  read: string;
  write: string;
  readOnlyRoots: string;
}

/** The profile a `sandbox` setting names; empty for `true`, `false` or none. */
export function profileOf(setting: SandboxSetting | null | undefined): SandboxProfile {
  return typeof setting === "object" && setting !== null ? setting : {};
}

/** The fields for a config's `sandbox` setting. */
export function sandboxFields(setting: SandboxSetting | null | undefined): SandboxFieldsState {
  const profile = profileOf(setting);
  const network = profile.network;
  return {
    on: setting !== false,
    network: network === false ? "off" : Array.isArray(network) ? "hosts" : "on",
    hosts: Array.isArray(network) ? network.join("\n") : "",
    read: (profile.read ?? []).join("\n"),
    write: (profile.write ?? []).join("\n"),
    readOnlyRoots: (profile.readOnlyRoots ?? []).join("\n"),
  };
}

/** The `sandbox` setting the fields say; `original` when they say the same as it. */
export function sandboxSetting(
  fields: SandboxFieldsState,
  original: SandboxSetting | null | undefined,
): SandboxSetting | null | undefined {
  if (!fields.on) return false;
  const profile: SandboxProfile = {};
  if (lines(fields.read).length) profile.read = lines(fields.read);
  if (lines(fields.write).length) profile.write = lines(fields.write);
  if (lines(fields.readOnlyRoots).length) profile.readOnlyRoots = lines(fields.readOnlyRoots);
  if (fields.network === "off") profile.network = false;
  if (fields.network === "hosts") profile.network = lines(fields.hosts);
  if (Object.keys(profile).length) return profile;
  // The default profile: as the file had it (absent or `true`), so nothing changes for it.
  return original === false || (typeof original === "object" && original !== null) ? true : original;
}

export function SandboxFields(props: { value: SandboxFieldsState; onChange: (v: SandboxFieldsState) => void }) {
  const v = props.value;
  const set = (change: Partial<SandboxFieldsState>) => props.onChange({ ...v, ...change });
  return (
    <fieldset className="sandbox-fields" data-testid="sandbox-fields">
      <legend>Sandbox</legend>
      <label className="field check">
        <input data-testid="sandbox-on" type="checkbox" checked={v.on} onChange={(e) => set({ on: e.currentTarget.checked })} />
        <span>
          Run it in the OS sandbox: it may read the system and its own program, and write only its roots and its own
          folders
        </span>
      </label>
      {v.on ? (
        <>
          <label className="field">
            <span>Network</span>
            <Choice data-testid="sandbox-network" value={v.network} onChoose={(picked) => set({ network: picked as Network })}>
              <option value="on">Any host</option>
              <option value="off">None (not even this computer)</option>
              <option value="hosts">Only these hosts</option>
            </Choice>
          </label>
          {v.network === "hosts" ? (
            <label className="field">
              <span>Hosts it may reach (one per line; *.example.com for its subdomains)</span>
              <textarea data-testid="sandbox-hosts" className="mono" rows={2} value={v.hosts} onChange={(e) => set({ hosts: e.currentTarget.value })} />
            </label>
          ) : null}
          <label className="field">
            <span>Also read (one path per line)</span>
            <textarea data-testid="sandbox-read" className="mono" rows={2} value={v.read} onChange={(e) => set({ read: e.currentTarget.value })} />
          </label>
          <label className="field">
            <span>Also read and write (one path per line)</span>
            <textarea data-testid="sandbox-write" className="mono" rows={2} value={v.write} onChange={(e) => set({ write: e.currentTarget.value })} />
          </label>
          <label className="field">
            <span>Roots it may only read (one per line)</span>
            <textarea className="mono" rows={1} value={v.readOnlyRoots} onChange={(e) => set({ readOnlyRoots: e.currentTarget.value })} />
          </label>
        </>
      ) : (
        <p className="banner warn">Without the sandbox it runs with all of your rights: your files, your keys, any host.</p>
      )}
    </fieldset>
  );
}
