// The audit export writes what the search shows: the screen hands its search to the backend.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ApprovalsScreen } from "./approvals";

function Screen(props: { backend: FakeBackend }) {
  return <ApprovalsScreen backend={props.backend} host={useHost(props.backend)} />;
}

describe("Approvals screen: export", () => {
  it("exports what the search shows, or the whole log without one", async () => {
    const b = new FakeBackend();
    render(<Screen backend={b} />);
    const exported = () => b.calls.filter((c) => c.method === "exportAudit").map((c) => c.args[0]);
    fireEvent.click(await screen.findByTestId("audit-export"));
    await screen.findByTestId("audit-exported");
    fireEvent.change(screen.getByTestId("audit-search"), { target: { value: "  Spain " } });
    fireEvent.click(screen.getByTestId("audit-export"));
    const all = { text: null, server: null, kind: null, flow: null, limit: null, beforeId: null };
    await waitFor(() => expect(exported()).toEqual([all, { ...all, text: "Spain" }]));
  });
});

describe("Approvals screen: rules", () => {
  it("flags a rule that covers nothing, as the core says", async () => {
    const b = new FakeBackend().addServer("files");
    b.policies = [
      { server: "files", kind: "tool_call", tool: "rm_rf", rule: "deny", warning: '"files" does not offer a tool named "rm_rf" now' },
      { server: "files", kind: "tool_call", tool: null, rule: "always_allow" },
    ];
    render(<Screen backend={b} />);
    const warnings = await screen.findAllByTestId("policy-warning");
    expect(warnings.map((w) => w.textContent)).toEqual(['"files" does not offer a tool named "rm_rf" now']);
  });
});
