// The Tasks screen: tool calls servers run as tasks (MCP tasks), running and finished, grouped by
// server, with each one's status and status message kept live from `task` events and a Cancel for
// those still running. What the backend keeps survives a reload of the window.
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { TaskState } from "../bindings/TaskState";
import type { TaskView } from "../bindings/TaskView";
import { ErrorBanner } from "../components/error-banner";

const RUNNING: ReadonlySet<TaskState> = new Set(["working", "input_required"]);

const LABELS: Record<TaskState, string> = {
  working: "Working",
  input_required: "Waiting for input",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
  lost: "Lost",
};

/** Whether a task can still change. */
export function isRunning(task: TaskView): boolean {
  return RUNNING.has(task.status);
}

/** `tasks` with `task` in place of the one it updates (or first, if new). */
export function upsertTask(tasks: TaskView[], task: TaskView): TaskView[] {
  const at = tasks.findIndex((t) => t.server === task.server && t.taskId === task.taskId);
  if (at < 0) return [task, ...tasks];
  const next = tasks.slice();
  next[at] = task;
  return next;
}

/** The status line of a task: its state and what the server said of it. */
export function taskStatusText(task: TaskView): string {
  const label = LABELS[task.status];
  return task.statusMessage ? `${label}: ${task.statusMessage}` : label;
}

/** What a task's error adds to its status message (nothing when it repeats it). */
export function errorDetail(task: TaskView): string | null {
  const error = task.error?.message;
  if (!error) return null;
  return task.statusMessage && error.includes(task.statusMessage) ? null : error;
}

export function TasksScreen(props: { backend: Backend }) {
  const { backend } = props;
  const [tasks, setTasks] = useState<TaskView[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      backend.listTasks().then(
        (t) => {
          if (!live) return;
          setTasks(t);
          setError(null);
        },
        (e: unknown) => live && setError(errorMessage(e)),
      );
    void load();
    const stop = backend.onCoreEvent((e: CoreEvent) => {
      if (e.type === "task") setTasks((ts) => upsertTask(ts, e.task));
      if (e.type === "resync") void load();
    });
    return () => {
      live = false;
      void stop.then((f) => f());
    };
  }, [backend]);

  const servers = [...new Set(tasks.map((t) => t.server))].sort();
  return (
    <div className="page" data-testid="tasks-screen" aria-label="Tasks">
      <header className="pane-header">
        <h2>Tasks</h2>
      </header>
      <p className="muted">Tool calls a server runs in the background. They are kept when the window reloads.</p>
      <ErrorBanner error={error} testId="error-banner" />
      {!tasks.length && !error ? <div className="empty muted">No tasks yet.</div> : null}
      {servers.map((server) => (
        <section className="card" key={server} data-testid="task-server" data-server={server} aria-label={`Tasks of ${server}`}>
          <h3>{server}</h3>
          <ul className="item-list task-list">
            {tasks
              .filter((t) => t.server === server)
              .map((t) => (
                <TaskRow key={t.taskId} backend={backend} task={t} onError={setError} />
              ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function TaskRow(props: { backend: Backend; task: TaskView; onError: (e: string) => void }) {
  const { backend, task } = props;
  const [cancelling, setCancelling] = useState(false);
  const running = isRunning(task);
  const cancel = () => {
    setCancelling(true);
    backend
      .cancelTask(task.server, task.taskId)
      .catch((e: unknown) => props.onError(errorMessage(e)))
      .finally(() => setCancelling(false));
  };
  return (
    <li data-testid="task-row" data-task={task.taskId} data-status={task.status}>
      <div className="item-title">
        <strong>{task.tool}</strong> <code className="muted">{task.taskId}</code>{" "}
        <span className={`chip ${task.status === "failed" || task.status === "lost" ? "warn" : ""}`}>
          {LABELS[task.status]}
        </span>
      </div>
      <div className="muted" data-testid="task-status" aria-live="polite">
        {task.statusMessage ?? ""}
        {errorDetail(task) ? ` — ${errorDetail(task)}` : ""}
      </div>
      <div className="muted">
        Started {new Date(task.createdAt).toLocaleString()}, updated {new Date(task.updatedAt).toLocaleTimeString()}
      </div>
      {task.result !== null && task.result !== undefined ? (
        <details data-testid="task-result">
          <summary>Result</summary>
          <pre>{JSON.stringify(task.result, null, 2)}</pre>
        </details>
      ) : null}
      {running ? (
        <button data-testid="task-cancel" disabled={cancelling} onClick={cancel}>
          Cancel
        </button>
      ) : null}
    </li>
  );
}
