// The Skills screen and skills in the chat: a listing reads nothing of a skill, everything a server
// wrote is shown revealed, a skill goes into the chat's next message once loaded (and is named
// there, not dumped), and a load that failed its check is shown as the core's sentence.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { App } from "../app";
import { FakeBackend } from "../backend/fake";
import { fakeSkills } from "../backend/fake-skills";
import type { NewMessage } from "../bindings/NewMessage";
import { SKILL_META } from "./chat/blocks";

const NOTES = "skill://release-notes/SKILL.md";
const STYLE = "skill://release-notes/references/STYLE.md";

/** Any character `reveal` would have replaced. */
const RAW = /[\u200b\u202e\u{E0041}]/u;

function backend() {
  return new FakeBackend({ resources: 5 }).addServer("everything").addSkillServer("docs");
}

function called(b: FakeBackend, method: string) {
  return b.calls.filter((c) => c.method === method);
}

async function openSkills(b: FakeBackend) {
  const view = render(<App backend={b} />);
  fireEvent.click(screen.getByTestId("nav-skills"));
  await waitFor(() => expect(screen.getAllByTestId("skill-item")).toHaveLength(2));
  return view;
}

function skillItem(name: string): HTMLElement {
  const item = screen.getAllByTestId("skill-item").find((i) => i.dataset.name === name);
  if (!item) throw new Error(`no skill ${name}`);
  return item;
}

async function sentMessages(b: FakeBackend): Promise<NewMessage[]> {
  await waitFor(() => expect(called(b, "sendMessage")).toHaveLength(1));
  return called(b, "sendMessage")[0]!.args[1] as NewMessage[];
}

describe("Skills screen", () => {
  it("lists each server's skills by name, description and files, revealed, reading none of them", async () => {
    const b = new FakeBackend().addServer("everything");
    const skills = fakeSkills();
    skills[0]!.skill.name = "release-notes\u200b";
    skills[0]!.skill.description = "Write release notes.\u202e\u{E0041}";
    b.addSkillServer("docs", skills);
    const { container } = await openSkills(b);

    // Only the server that offers skills is listed, and only it was asked.
    expect(screen.getAllByTestId("skill-server").map((s) => s.dataset.server)).toEqual(["docs"]);
    expect(called(b, "listSkills").map((c) => c.args[0])).toEqual(["docs"]);
    const notes = skillItem("release-notes\u200b");
    expect(notes.querySelector("strong")!.textContent).toContain("release-notes⟨U+200B⟩");
    const description = within(notes).getByTestId("skill-description");
    expect(description.textContent).toContain("Write release notes.⟨U+202E⟩⟨U+E0041⟩");
    expect(within(description).getByTestId("hidden-mark")).toBeTruthy();
    expect(within(notes).getByTestId("skill-files").textContent).toBe("2 files");
    expect(within(skillItem("changelog")).getByTestId("skill-files").textContent).toBe("dynamic files");
    expect(container.textContent).not.toMatch(RAW);
    // Progressive disclosure: nothing of a skill is read by listing it.
    expect(called(b, "loadSkill")).toEqual([]);
    expect(called(b, "readSkillFile")).toEqual([]);
  });

  it("says when no running server offers skills", async () => {
    render(<App backend={new FakeBackend().addServer("everything")} />);
    fireEvent.click(screen.getByTestId("nav-skills"));
    expect(await screen.findByText("Start a server that offers skills to see them here.")).toBeTruthy();
  });

  it("shows a listing's error as its sentence, and a server with no skills as such", async () => {
    const failing = new FakeBackend().addSkillServer("docs", []).addSkillServer("broken");
    failing.listSkills = async (server) => {
      if (server === "broken") throw { code: "server_error", message: 'server "broken" sent a skill Switchboard cannot use: no uri' };
      return [];
    };
    render(<App backend={failing} />);
    fireEvent.click(screen.getByTestId("nav-skills"));
    const card = (name: string) => screen.getAllByTestId("skill-server").find((s) => s.dataset.server === name)!;
    await waitFor(() => expect(within(card("broken")).getByTestId("error-banner").textContent).toBe(
      'server "broken" sent a skill Switchboard cannot use: no uri',
    ));
    expect(card("docs").textContent).toContain("It offers no skills at the moment.");
  });

  it("shows a skill's SKILL.md when asked, and reads its other files one at a time, only when asked", async () => {
    const b = backend();
    await openSkills(b);
    const notes = skillItem("release-notes");
    fireEvent.click(within(notes).getByTestId("skill-view-toggle"));
    const view = await within(notes).findByTestId("skill-view");
    expect(within(view).getByTestId("skill-body").querySelector("strong")?.textContent).toBe("Features");
    expect(called(b, "loadSkill").map((c) => c.args)).toEqual([["docs", NOTES]]);
    expect(called(b, "readSkillFile")).toEqual([]);

    const file = within(view).getByTestId("skill-file");
    expect(file.textContent).toContain("references/STYLE.md");
    fireEvent.click(within(file).getByTestId("skill-file-read"));
    await within(file).findByText(/Use the past tense/);
    expect(called(b, "readSkillFile").map((c) => c.args)).toEqual([["docs", NOTES, STYLE]]);

    // A file that no longer matches its listing is not shown: the core's sentence is.
    b.skills["docs"]![0]!.tampered = [STYLE];
    fireEvent.click(within(file).getByText("Hide"));
    fireEvent.click(within(file).getByTestId("skill-file-read"));
    expect((await within(file).findByTestId("skill-file-error")).textContent).toBe(
      `server "docs"'s skill "release-notes": ${STYLE} was not used: its digest differs from the listing`,
    );
  });

  it("lists a skill's folder as its server lists it, a level at a time, reading nothing", async () => {
    const b = backend();
    const extra = "skill://release-notes/references/draft\u202e.md";
    b.skills["docs"]![0]!.texts[extra] = "unlisted";
    await openSkills(b);
    const notes = skillItem("release-notes");
    fireEvent.click(within(notes).getByTestId("skill-view-toggle"));
    const folder = await within(notes).findByTestId("skill-folder");
    expect(called(b, "skillFolder")).toEqual([]);
    fireEvent.click(within(folder).getByTestId("skill-folder-list"));
    await waitFor(() => expect(within(folder).getAllByTestId("skill-folder-entry")).toHaveLength(2));
    const references = within(folder)
      .getAllByTestId("skill-folder-entry")
      .find((e) => e.dataset.directory === "true")!;
    fireEvent.click(within(references).getByRole("button"));
    await waitFor(() => expect(within(references).getAllByTestId("skill-folder-entry")).toHaveLength(2));
    const [style, draft] = ["STYLE.md", "draft"].map(
      (n) => within(references).getAllByTestId("skill-folder-entry").find((e) => e.textContent!.includes(n))!,
    );
    expect(style!.dataset.listed).toBe("true");
    expect(draft!.dataset.listed).toBe("false");
    expect(draft!.textContent).toContain("⟨U+202E⟩");
    expect(draft!.textContent).toContain("not in its listing");
    expect(called(b, "skillFolder").map((c) => c.args)).toEqual([
      ["docs", NOTES, null],
      ["docs", NOTES, "skill://release-notes/references"],
    ]);
    expect(called(b, "readSkillFile")).toEqual([]);
  });

  it("reads a file of a dynamic skill's folder when asked, as the server's word", async () => {
    const b = backend();
    await openSkills(b);
    const changelog = skillItem("changelog");
    fireEvent.click(within(changelog).getByTestId("skill-view-toggle"));
    expect((await within(changelog).findByTestId("skill-dynamic")).textContent).toContain("read only when asked for");
    const folder = within(changelog).getByTestId("skill-folder");
    fireEvent.click(within(folder).getByTestId("skill-folder-list"));
    const templates = await waitFor(() => within(folder).getAllByTestId("skill-folder-entry").find((e) => e.dataset.directory === "true")!);
    fireEvent.click(within(templates).getByRole("button"));
    const entry = await waitFor(() => within(templates).getAllByTestId("skill-folder-entry")[0]!);
    expect(called(b, "readSkillFile")).toEqual([]);
    fireEvent.click(within(entry).getByTestId("skill-file-read"));
    await within(entry).findByText(/\{change\} \(\{author\}\)/);
    expect(called(b, "readSkillFile").map((c) => c.args)).toEqual([
      ["docs", "skill://changelog/SKILL.md", "skill://changelog/templates/entry.md"],
    ]);
  });

  it("shows a load that failed its check as the core's sentence, and puts nothing in the chat", async () => {
    const b = backend();
    b.skills["docs"]![0]!.tampered = [NOTES];
    await openSkills(b);
    const notes = skillItem("release-notes");
    fireEvent.click(within(notes).getByTestId("skill-use"));
    expect((await within(notes).findByTestId("skill-error")).textContent).toBe(
      `server "docs"'s skill "release-notes": ${NOTES} was not used: its digest differs from the listing`,
    );
    expect(screen.getByTestId("nav-skills").getAttribute("aria-selected")).toBe("true");
    fireEvent.click(screen.getByTestId("nav-chat"));
    await screen.findByTestId("new-chat");
    expect(screen.queryByTestId("skills-waiting")).toBeNull();
  });
});

describe("A skill used in the chat", () => {
  it("is loaded once, waits in the composer, goes with the next message, and is named in the conversation", async () => {
    const b = backend();
    await openSkills(b);
    fireEvent.click(within(skillItem("release-notes")).getByTestId("skill-use"));
    // The chat comes forward, the skill waiting for a conversation.
    const waiting = await screen.findByTestId("skills-waiting");
    expect(waiting.textContent).toContain("Skill release-notes from docs");
    fireEvent.click(screen.getByTestId("new-chat"));
    const input = await screen.findByTestId("chat-input");
    expect(screen.getByTestId("skill-attachment").textContent).toContain("Skill release-notes from docs");
    fireEvent.change(input, { target: { value: "Notes for 1.2, please." } });
    fireEvent.click(screen.getByTestId("chat-send"));

    const [message] = await sentMessages(b);
    expect(called(b, "loadSkill").map((c) => c.args)).toEqual([["docs", NOTES]]);
    const loaded = await b.loadSkill("docs", NOTES);
    const mark = { [SKILL_META]: { server: "docs", name: "release-notes", uri: NOTES } };
    // The core's blocks, the SKILL.md as text (the providers take no embedded resource), marked.
    expect(message!.content).toEqual([
      { ...(loaded.content[0] as object), _meta: mark },
      { type: "text", text: `Resource ${NOTES}:\n${loaded.loaded.text}`, _meta: mark },
      { type: "text", text: "Notes for 1.2, please." },
    ]);
    expect(b.conversations[0]!.conversation.title).toBe("Notes for 1.2, please.");
    expect(screen.queryByTestId("skill-attachment")).toBeNull();

    // The conversation names the skill; what the model was given shows only when asked.
    const sent = await screen.findByTestId("chat-skill");
    expect(sent.textContent).toContain("Skill release-notes from docs");
    const user = screen.getAllByTestId("chat-message")[0]!;
    expect(user.textContent).not.toContain("Group the changes");
    expect(user.textContent).toContain("Notes for 1.2, please.");
    fireEvent.click(within(sent).getByTestId("chat-skill-toggle"));
    expect(sent.textContent).toContain("Group the changes");
  });

  it("is offered in the composer's / palette beside the prompts, loaded only when picked", async () => {
    const b = backend();
    render(<App backend={b} />);
    fireEvent.click(screen.getByTestId("nav-chat"));
    fireEvent.click(await screen.findByTestId("new-chat"));
    const input = await screen.findByTestId("chat-input");
    fireEvent.change(input, { target: { value: "/" } });
    await waitFor(() => expect(screen.getAllByTestId("palette-skill-option")).toHaveLength(2));
    expect(screen.getAllByTestId("palette-prompt-option").length).toBeGreaterThan(0);
    fireEvent.change(input, { target: { value: "/relnotes" } });
    await waitFor(() => expect(screen.getAllByTestId("palette-skill-option").map((o) => o.dataset.name)).toEqual(["release-notes"]));
    expect(screen.getByTestId("palette-skill-option").textContent).toContain("docs · Write release notes");
    expect(called(b, "loadSkill")).toEqual([]);
    fireEvent.keyDown(input, { key: "Enter" });
    expect((await screen.findByTestId("skill-attachment")).textContent).toContain("Skill release-notes from docs");
    expect((input as HTMLTextAreaElement).value).toBe("");
    // Sent on its own, it names the conversation.
    fireEvent.click(screen.getByTestId("chat-send"));
    const [message] = await sentMessages(b);
    expect(message!.content).toHaveLength(2);
    expect(called(b, "loadSkill")).toHaveLength(1);
    await waitFor(() => expect(b.conversations[0]!.conversation.title).toBe("Skill release-notes"));
  });

  it("shows a skill the palette could not load as the core's sentence", async () => {
    const b = backend();
    b.skills["docs"]![0]!.tampered = [NOTES];
    render(<App backend={b} />);
    fireEvent.click(screen.getByTestId("nav-chat"));
    fireEvent.click(await screen.findByTestId("new-chat"));
    const input = await screen.findByTestId("chat-input");
    fireEvent.change(input, { target: { value: "/release" } });
    await screen.findByTestId("palette-skill-option");
    fireEvent.keyDown(input, { key: "Enter" });
    expect((await screen.findByTestId("composer-error")).textContent).toBe(
      `server "docs"'s skill "release-notes": ${NOTES} was not used: its digest differs from the listing`,
    );
    expect(screen.queryByTestId("skill-attachment")).toBeNull();
  });
});
