import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import type { TaskView } from "../bindings/TaskView";
import { useHost } from "../host";
import { errorDetail, TasksScreen, upsertTask } from "./tasks";
import type { ToolSelection } from "./tools";
import { ToolsScreen } from "./tools";

function task(over: Partial<TaskView> = {}): TaskView {
  return {
    server: "everything",
    taskId: "t-1",
    tool: "simulate-research-query",
    callId: null,
    status: "working",
    statusMessage: "Gathering sources...",
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    result: null,
    error: null,
    ...over,
  };
}

function Tools(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  const [tools, setTools] = useState<ToolSelection>({ server: null, tools: {} });
  return <ToolsScreen backend={props.backend} host={host} selection={tools} onSelect={setTools} />;
}

describe("Tasks screen", () => {
  it("lists kept tasks per server, follows their status live and cancels a running one", async () => {
    const b = new FakeBackend().addServer("everything").addServer("modern");
    b.tasks = [
      task(),
      task({
        server: "modern",
        taskId: "r-1",
        tool: "research",
        status: "completed",
        statusMessage: null,
        result: { content: [{ type: "text", text: "Report on tides" }] },
      }),
      task({ taskId: "t-0", status: "lost", statusMessage: "Switchboard stopped before the task finished" }),
    ];
    render(<TasksScreen backend={b} />);
    const groups = await screen.findAllByTestId("task-server");
    expect(groups.map((g) => g.getAttribute("data-server"))).toEqual(["everything", "modern"]);
    const rows = screen.getAllByTestId("task-row");
    expect(rows.map((r) => r.getAttribute("data-status"))).toEqual(["working", "lost", "completed"]);
    // Only the running task can be cancelled; the finished one keeps its result.
    expect(screen.getAllByTestId("task-cancel")).toHaveLength(1);
    expect(screen.getAllByTestId("task-result").map((r) => r.textContent)).toEqual([
      expect.stringContaining("Report on tides"),
    ]);

    act(() => b.emit({ type: "task", server: "everything", task: task({ statusMessage: "Generating report..." }) }));
    await waitFor(() => expect(screen.getAllByTestId("task-status")[0]!.textContent).toBe("Generating report..."));

    fireEvent.click(screen.getByTestId("task-cancel"));
    await waitFor(() => expect(screen.queryByTestId("task-cancel")).toBeNull());
    expect(b.calls.filter((c) => c.method === "cancelTask").map((c) => c.args)).toEqual([["everything", "t-1"]]);
    expect(screen.getAllByTestId("task-row")[0]!.getAttribute("data-status")).toBe("cancelled");
  });

  it("shows a task's error only where it adds to its status message", () => {
    const said = "Client cancelled task execution.";
    const error = (message: string) => ({ code: "cancelled" as const, message });
    expect(errorDetail(task({ status: "cancelled", statusMessage: said, error: error(`server "s" cancelled the task: ${said}`) }))).toBeNull();
    expect(errorDetail(task({ status: "failed", statusMessage: "Working", error: error("out of disk") }))).toBe("out of disk");
    expect(errorDetail(task({ status: "failed", statusMessage: null, error: error("out of disk") }))).toBe("out of disk");
    expect(errorDetail(task())).toBeNull();
  });

  it("a task first seen in an event joins the list", () => {
    const later = task({ taskId: "t-2" });
    expect(upsertTask([task()], later).map((t) => t.taskId)).toEqual(["t-2", "t-1"]);
    expect(upsertTask([task(), later], task({ status: "completed" }))[0]!.status).toBe("completed");
  });
});

describe("Tools screen: a call that runs as a task", () => {
  it("shows the task's status under the call while it runs", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "hi" } });
    b.holdCalls = true;
    fireEvent.click(screen.getByTestId("call-tool"));
    await screen.findByTestId("cancel-call");
    const callId = b.calls.find((c) => c.method === "callTool")!.args[3] as string;
    // Another call's task is not this one's.
    act(() => b.emit({ type: "task", server: "everything", task: task({ callId: "someone-else" }) }));
    expect(screen.queryByTestId("call-task-status")).toBeNull();
    act(() =>
      b.emit({
        type: "task",
        server: "everything",
        task: task({ callId, status: "input_required", statusMessage: "Which topic?" }),
      }),
    );
    expect((await screen.findByTestId("call-task-status")).textContent).toContain("Waiting for input: Which topic?");
    act(() => b.pending.get(callId)!.resolve({ content: [{ type: "text", text: "done" }] }));
    await waitFor(() => expect(screen.queryByTestId("call-task-status")).toBeNull());
  });
});
