// What the chat screen's tests share.
import { act } from "@testing-library/react";
import type { FakeBackend } from "../backend/fake";
import type { WithheldReason } from "../bindings/WithheldReason";

/** A turn of the first conversation reports these tools of `everything` as not offered to the model. */
export async function turnWithheld(b: FakeBackend, tools: [tool: string, reason: WithheldReason][]) {
  const conversation = b.conversations[0]!.conversation.id;
  await act(async () =>
    b.emit({ type: "chatToolsWithheld", conversation, tools: tools.map(([tool, reason]) => ({ server: "everything", tool, reason })) }),
  );
}
