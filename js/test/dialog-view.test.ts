// Dialog cards in the view: the form for the pending dialog, outcome cards for the rest.
import { describe, expect, it } from "vitest";
import type { Answer } from "../src/types";
import { delta, dialog, dialogOf, text } from "./fixtures";
import { deferred, flush, INFO, mount, press, type } from "./harness";

const PENDING = dialogOf();

function mountPending(over: Parameters<typeof dialogOf>[0] = {}) {
  const m = mount(
    [text(0, "user", "build it"), dialog(1, over)],
    { state: "question" },
    undefined,
    {
      pendingDialog: dialogOf(over),
    },
  );
  const card = () => m.msg(1)!.querySelector<HTMLElement>(".lw-dialog")!;
  const form = () => m.msg(1)!.querySelector<HTMLFormElement>(".lw-dialog-form")!;
  const fieldset = (header: string) =>
    form().querySelector<HTMLFieldSetElement>(`fieldset.lw-question[data-header="${header}"]`)!;
  const option = (header: string, label: string) =>
    fieldset(header).querySelector<HTMLInputElement>(`label.lw-option input[value="${label}"]`)!;
  const freeText = (header: string) =>
    fieldset(header).querySelector<HTMLInputElement>(".lw-freetext")!;
  const submit = () => form().querySelector<HTMLButtonElement>(".lw-dialog-submit")!;
  const click = (input: HTMLInputElement) => input.click(); // fires input and change, like a user
  return { ...m, card, form, fieldset, option, freeText, submit, click };
}

describe("the form card", () => {
  it("shows every question of the pending dialog in one form", () => {
    const { card, form, fieldset, submit } = mountPending();
    expect(card().dataset.status).toBe("pending");
    expect(card().dataset.kind).toBe("question");
    expect(form().querySelectorAll("fieldset.lw-question")).toHaveLength(2);
    expect(form().querySelectorAll(".lw-dialog-submit")).toHaveLength(1);
    expect(submit().type).toBe("submit");

    const db = fieldset("Database");
    expect(db.querySelector("legend .lw-question-header")?.textContent).toBe("Database");
    expect(db.querySelector("legend .lw-question-text")?.textContent).toBe(
      "Which database should the app use?",
    );
    const radios = db.querySelectorAll<HTMLInputElement>("label.lw-option input");
    expect([...radios].map((r) => [r.type, r.value])).toEqual([
      ["radio", "SQLite"],
      ["radio", "Postgres"],
    ]);
    expect(db.querySelector("label.lw-option")?.textContent).toContain("A file, no server");
    expect(db.querySelector(".lw-other-input")?.getAttribute("type")).toBe("radio");
    expect(db.querySelector(".lw-freetext")).not.toBeNull();

    const features = fieldset("Features");
    expect(
      [...features.querySelectorAll<HTMLInputElement>("label.lw-option input")].map((c) => c.type),
    ).toEqual(["checkbox", "checkbox", "checkbox"]);
    expect(features.querySelector(".lw-other-input")?.getAttribute("type")).toBe("checkbox");
  });

  it("locks the composer while the question waits", () => {
    const { q } = mountPending();
    expect(q<HTMLTextAreaElement>(".lw-input").disabled).toBe(true);
    expect(q(".lw-notice").textContent).toBe("Answer the question above to continue.");
  });

  it("submit sends one answer per question, in order, for the dialog's tool_id", () => {
    const { actions, option, freeText, click, form } = mountPending();
    click(option("Database", "Postgres"));
    click(option("Features", "Auth"));
    click(option("Features", "Search"));
    type(freeText("Features"), "Sync");
    form().requestSubmit();
    expect(actions.answer).toHaveBeenCalledTimes(1);
    const expected: Answer[] = [
      { selected: ["Postgres"] },
      { selected: ["Auth", "Search"], text: "Sync" },
    ];
    expect(actions.answer).toHaveBeenCalledWith("toolu_ask", expected);
    expect(actions.answer.mock.calls[0]![1][0]).not.toHaveProperty("text");
  });

  it("typing into Other chooses it: instead of the option, or besides the options", () => {
    const { actions, option, freeText, click, fieldset, submit } = mountPending();
    click(option("Database", "SQLite"));
    type(freeText("Database"), "DuckDB");
    expect(fieldset("Database").querySelector<HTMLInputElement>(".lw-other-input")!.checked).toBe(
      true,
    );
    expect(option("Database", "SQLite").checked).toBe(false);
    click(option("Features", "Export"));
    type(freeText("Features"), "Dark mode");
    expect(option("Features", "Export").checked).toBe(true);
    submit().click();
    expect(actions.answer).toHaveBeenCalledWith("toolu_ask", [
      { selected: [], text: "DuckDB" },
      { selected: ["Export"], text: "Dark mode" },
    ]);
  });

  it("choosing an option after typing drops the typed answer in a single-select question", () => {
    const { actions, option, freeText, click, submit } = mountPending();
    type(freeText("Database"), "DuckDB");
    click(option("Database", "SQLite"));
    click(option("Features", "Auth"));
    submit().click();
    expect(actions.answer).toHaveBeenCalledWith("toolu_ask", [
      { selected: ["SQLite"] },
      { selected: ["Auth"] },
    ]);
  });

  it("Enter in the free-text field submits", () => {
    const { actions, option, freeText, click } = mountPending();
    click(option("Features", "Auth"));
    type(freeText("Database"), "DuckDB");
    const event = press(freeText("Database"), { key: "Enter" });
    expect(event.defaultPrevented).toBe(true);
    expect(actions.answer).toHaveBeenCalledTimes(1);
    expect(actions.send).not.toHaveBeenCalled();
  });

  it("blocks an incomplete answer with inline errors, and clears them once fixed", () => {
    const { actions, option, click, fieldset, submit } = mountPending();
    click(option("Database", "SQLite"));
    submit().click();
    expect(actions.answer).not.toHaveBeenCalled();
    const db = fieldset("Database");
    const features = fieldset("Features");
    expect(db.querySelector<HTMLElement>(".lw-question-error")!.hidden).toBe(true);
    const error = features.querySelector<HTMLElement>(".lw-question-error")!;
    expect(error.hidden).toBe(false);
    expect(error.textContent).toBe("Choose an option or type an answer.");
    expect(features.getAttribute("aria-describedby")).toBe(error.id);
    expect(features.hasAttribute("data-invalid")).toBe(true);
    // The first question that needs an answer gets the focus.
    expect(document.activeElement).toBe(option("Features", "Auth"));

    click(option("Features", "Export"));
    expect(error.hidden).toBe(true);
    expect(features.hasAttribute("aria-describedby")).toBe(false);
    submit().click();
    expect(actions.answer).toHaveBeenCalledTimes(1);
  });

  it("does not take blank text, or Other without text, as an answer", () => {
    const { actions, option, freeText, click, fieldset, submit } = mountPending();
    click(option("Database", "SQLite"));
    click(fieldset("Features").querySelector<HTMLInputElement>(".lw-other-input")!);
    type(freeText("Features"), "   ");
    submit().click();
    expect(actions.answer).not.toHaveBeenCalled();
    expect(fieldset("Features").querySelector(".lw-question-error")?.textContent).toMatch(/Other/);
  });

  it("is shut while the answer is in flight", async () => {
    const { actions, option, click, form, submit } = mountPending();
    const pending = deferred();
    actions.answer.mockReturnValueOnce(pending.promise);
    click(option("Database", "SQLite"));
    click(option("Features", "Auth"));
    submit().click();
    expect(submit().disabled).toBe(true);
    expect(submit().textContent).toBe("Sending…");
    expect(submit().getAttribute("aria-busy")).toBe("true");
    for (const fieldset of form().querySelectorAll("fieldset"))
      expect(fieldset.disabled).toBe(true);
    form().requestSubmit();
    expect(actions.answer).toHaveBeenCalledTimes(1); // no double answer
    pending.resolve();
    await flush();
    // Taken: it stays shut until the dialog moves on.
    expect(submit().disabled).toBe(true);
    expect(submit().textContent).toBe("Sent");
  });

  it("on failure shows the error in the card and the error box, and keeps the choices", async () => {
    const { actions, root, option, freeText, click, form, submit, card } = mountPending();
    actions.answer.mockRejectedValueOnce(new Error("the dialog is no longer pending"));
    click(option("Database", "Postgres"));
    click(option("Features", "Auth"));
    type(freeText("Features"), "Sync");
    submit().click();
    await flush();

    const inCard = card().querySelector<HTMLElement>(".lw-dialog-error")!;
    expect(inCard.hidden).toBe(false);
    expect(inCard.getAttribute("role")).toBe("alert");
    expect(inCard.textContent).toBe("Could not send the answer: the dialog is no longer pending");
    expect(root.querySelector(".lw-errors .lw-error")?.textContent).toContain(
      "the dialog is no longer pending",
    );
    expect(submit().disabled).toBe(false);
    expect(submit().textContent).toBe("Submit");
    for (const fieldset of form().querySelectorAll("fieldset"))
      expect(fieldset.disabled).toBe(false);
    expect(option("Database", "Postgres").checked).toBe(true);
    expect(option("Features", "Auth").checked).toBe(true);
    expect(freeText("Features").value).toBe("Sync");

    submit().click();
    expect(actions.answer).toHaveBeenCalledTimes(2);
    expect(actions.answer.mock.calls[1]).toEqual(actions.answer.mock.calls[0]);
    expect(inCard.hidden).toBe(true); // a new try clears the old failure
  });

  it("keeps choices and focus when the message re-renders underneath", () => {
    const { view, option, freeText, click, msg } = mountPending();
    click(option("Database", "Postgres"));
    freeText("Features").focus();
    type(freeText("Features"), "Sync");
    const before = msg(1);
    view.applyDelta(delta(0, [{ ...dialog(1), timestamp: "2025-11-30T10:00:00Z" }]));
    expect(msg(1)).not.toBe(before);
    expect(option("Database", "Postgres").checked).toBe(true);
    expect(freeText("Features").value).toBe("Sync");
    expect(document.activeElement).toBe(freeText("Features"));
  });

  it("renders a plan's body as sanitised markdown above its question", () => {
    const plan = {
      kind: "plan" as const,
      tool_name: "ExitPlanMode",
      body: "## Plan\n\n1. Add **SQLite**\n<img src=x onerror=alert(1)><form><input></form>",
      questions: [
        {
          header: "Plan",
          text: "Proceed with this plan?",
          options: [
            { label: "Yes", description: "Start building" },
            { label: "No", description: "Keep planning" },
          ],
          multi_select: false,
          free_text: true,
        },
      ],
    };
    const { card, form } = mountPending(plan);
    expect(card().dataset.kind).toBe("plan");
    const body = form().querySelector(".lw-markdown")!;
    expect(body.querySelector("h2")?.textContent).toBe("Plan");
    expect(body.querySelector("strong")?.textContent).toBe("SQLite");
    expect(body.querySelector("img, form, input, [onerror]")).toBeNull();
    // The body comes before the question.
    expect(body.compareDocumentPosition(form().querySelector("fieldset")!)).toBe(
      Node.DOCUMENT_POSITION_FOLLOWING,
    );
  });
});

describe("outcome and read-only cards", () => {
  it("pending → null turns the form into the outcome card", () => {
    const { view, msg, card } = mountPending();
    expect(msg(1)!.querySelector(".lw-dialog-form")).not.toBeNull();
    view.setPendingDialog(null);
    expect(msg(1)!.querySelector(".lw-dialog-form")).toBeNull();
    expect(card().dataset.status).toBe("pending");
    expect(msg(1)!.querySelector("input, button[type=submit]")).toBeNull();
    view.applyDelta(
      delta(0, [
        dialog(1, { status: "answered", outcome: "Database → SQLite; Features → Auth, Export" }),
      ]),
    );
    expect(card().dataset.status).toBe("answered");
    expect(card().querySelector(".lw-dialog-outcome")?.textContent).toBe(
      "answered: Database → SQLite; Features → Auth, Export",
    );
  });

  it("a message update to answered re-renders the card even before the trait moves", () => {
    const { view, msg, card } = mountPending();
    view.applyDelta(delta(0, [dialog(1, { status: "answered", outcome: "Database → SQLite" })]));
    expect(msg(1)!.querySelector(".lw-dialog-form")).toBeNull();
    expect(card().dataset.status).toBe("answered");
    expect(card().querySelector(".lw-dialog-outcome")?.textContent).toBe(
      "answered: Database → SQLite",
    );
  });

  it("shows the kind, the questions and how it ended", () => {
    const { msg } = mount([
      dialog(0, { status: "answered", outcome: "Database → SQLite" }),
      dialog(1, { kind: "plan", status: "rejected", body: "The plan", questions: [] }),
      dialog(2, { kind: "approval", status: "dismissed", tool_name: "Bash" }),
    ]);
    const card = (seq: number) => msg(seq)!.querySelector<HTMLElement>(".lw-dialog")!;
    expect(card(0).querySelector(".lw-dialog-kind")?.textContent).toBe("Question");
    expect(card(0).querySelector(".lw-dialog-tool")?.textContent).toBe("AskUserQuestion");
    expect(
      [...card(0).querySelectorAll(".lw-dialog-questions .lw-question-text")].map(
        (e) => e.textContent,
      ),
    ).toEqual([
      "Which database should the app use?",
      "Which features should the first version have?",
    ]);
    expect(card(1).dataset.kind).toBe("plan");
    expect(card(1).querySelector(".lw-dialog-kind")?.textContent).toBe("Plan");
    expect(card(1).querySelector(".lw-dialog-outcome")?.textContent).toBe("rejected");
    expect(card(1).querySelector("details.lw-dialog-body")?.textContent).toContain("The plan");
    expect(card(2).querySelector(".lw-dialog-kind")?.textContent).toBe("Tool approval");
    expect(card(2).querySelector(".lw-dialog-outcome")?.textContent).toBe("dismissed");
  });

  it("a pending dialog the widget cannot answer points to the terminal", () => {
    const { msg, q, view } = mount([dialog(1)], { state: "question" }, undefined, {
      pendingDialog: { ...PENDING, answerable: false },
    });
    const card = msg(1)!.querySelector<HTMLElement>(".lw-dialog")!;
    expect(card.querySelector("form, input")).toBeNull();
    const hint = card.querySelector(".lw-dialog-terminal")!;
    expect(hint.textContent).toBe(`Answer it in the terminal: ${INFO.attachCommand}`);
    expect(card.querySelector(".lw-option-label")?.textContent).toBe("SQLite");
    expect(q(".lw-notice").textContent).toBe("Answer the question above to continue.");
    view.setInfo({ attachCommand: "tmux attach -t other" });
    expect(msg(1)!.querySelector(".lw-dialog-attach")?.textContent).toBe("tmux attach -t other");
  });

  it("a pending dialog that is not the one waited on is not a form", () => {
    const { msg } = mount([dialog(1)], {}, undefined, {
      pendingDialog: { ...PENDING, tool_id: "toolu_other" },
    });
    expect(msg(1)!.querySelector(".lw-dialog-form")).toBeNull();
    expect(msg(1)!.querySelector(".lw-dialog-terminal")).toBeNull();
  });

  it("becomes a form when its dialog becomes the pending one, and only it re-renders", () => {
    const { view, msg } = mount([
      dialog(1, { tool_id: "toolu_old", status: "answered" }),
      dialog(2),
    ]);
    const old = msg(1);
    view.setPendingDialog(PENDING);
    expect(msg(2)!.querySelector(".lw-dialog-form")).not.toBeNull();
    expect(msg(1)).toBe(old);
    const form = msg(2);
    view.setPendingDialog({ ...PENDING }); // the same dialog again: nothing to do
    expect(msg(2)).toBe(form);
  });
});

describe("a pending dialog no message shows yet", () => {
  // Some CLIs record the call only once it is answered: the form must show all the same.
  const APPROVAL = dialogOf({ tool_id: "call_shell", kind: "approval" });

  it("is a form of its own at the end of the log, answerable", () => {
    const { root, view, actions } = mount([text(0, "user", "run it")], { state: "question" });
    expect(root.querySelector(".lw-dialog-form")).toBeNull();
    view.setPendingDialog(APPROVAL);
    const card = root.querySelector<HTMLElement>(".lw-msg.lw-pending-only");
    expect(card).not.toBeNull();
    const form = card!.querySelector<HTMLFormElement>(".lw-dialog-form")!;
    expect(form.dataset.toolId).toBe("call_shell");
    expect(root.querySelector(".lw-log")!.lastElementChild).toBe(card);
    expect(actions.answer).not.toHaveBeenCalled();
  });

  it("gives way to the message once the transcript shows the dialog", () => {
    const { root, view } = mount([text(0, "user", "run it")], { state: "question" });
    view.setPendingDialog(APPROVAL);
    expect(root.querySelectorAll(".lw-dialog-form")).toHaveLength(1);
    expect(
      view.applyDelta(delta(0, [dialog(1, { tool_id: "call_shell", kind: "approval" })])),
    ).toBe("applied");
    expect(root.querySelector(".lw-pending-only")).toBeNull();
    expect(root.querySelectorAll(".lw-dialog-form")).toHaveLength(1);
  });

  it("goes when nothing is pending any more", () => {
    const { root, view } = mount([text(0, "user", "run it")], { state: "question" });
    view.setPendingDialog(APPROVAL);
    view.setPendingDialog(null);
    expect(root.querySelector(".lw-pending-only")).toBeNull();
  });
});
