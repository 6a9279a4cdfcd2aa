// A command and its arguments as they will run: each argument on its own, quoted, with hidden
// characters revealed, so where one ends and the next begins can be checked (joined with spaces,
// `"a b"` and `a b` would look the same).
import { reveal } from "./visible";

export function CommandLine(props: { command: string; args: readonly string[] }) {
  return (
    <span className="command-line" data-testid="command-line">
      <code>{reveal(props.command)}</code>
      {props.args.map((a, i) => (
        <code key={i} className="arg" data-testid="command-arg">
          {JSON.stringify(reveal(a))}
        </code>
      ))}
    </span>
  );
}
