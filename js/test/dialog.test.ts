// @vitest-environment node
// Dialog forms as pure logic: modes, controls, drafts, validation, answers.
import { describe, expect, it } from "vitest";
import {
  buildAnswers,
  dialogMode,
  draftFits,
  emptyDraft,
  formSpec,
  isPendingDialog,
  outcomeText,
  questionError,
  questionSpec,
  typeText,
  validateDraft,
  type QuestionDraft,
} from "../src/chat/dialog";
import type { Question } from "../src/types";
import { dialogOf } from "./fixtures";

const question = (over: Partial<Question> = {}): Question => ({
  header: "H",
  text: "T?",
  options: [
    { label: "A", description: "" },
    { label: "B", description: "" },
  ],
  multi_select: false,
  free_text: true,
  ...over,
});

const draft = (over: Partial<QuestionDraft> = {}): QuestionDraft => ({
  selected: [],
  other: false,
  text: "",
  ...over,
});

describe("dialogMode", () => {
  const pending = dialogOf();

  it("is a form for the pending, answerable dialog of the same tool call", () => {
    expect(dialogMode(dialogOf(), pending)).toBe("form");
    expect(isPendingDialog(dialogOf(), pending)).toBe(true);
  });

  it("sends to the terminal what the widget cannot answer", () => {
    expect(dialogMode(dialogOf(), { ...pending, answerable: false })).toBe("terminal");
    expect(dialogMode(dialogOf({ answerable: false }), null)).toBe("terminal");
  });

  it("waits when the dialog is not (or not yet) the pending one", () => {
    expect(dialogMode(dialogOf(), null)).toBe("waiting");
    expect(dialogMode(dialogOf(), { ...pending, tool_id: "toolu_other" })).toBe("waiting");
  });

  it("never matches on a missing tool_id", () => {
    const loose = dialogOf({ tool_id: null });
    expect(isPendingDialog(loose, { ...pending, tool_id: null })).toBe(false);
    expect(dialogMode(loose, { ...pending, tool_id: null })).toBe("waiting");
  });

  it("has ended once it is no longer pending, whatever the trait says", () => {
    for (const status of ["answered", "rejected", "dismissed"] as const) {
      expect(dialogMode(dialogOf({ status }), pending)).toBe("ended");
    }
  });
});

describe("outcomeText", () => {
  it("says how it ended, and what was answered", () => {
    const d = dialogOf({ status: "answered", outcome: "Database → SQLite; Features → Auth" });
    expect(outcomeText(d)).toBe("answered: Database → SQLite; Features → Auth");
    expect(outcomeText(dialogOf({ status: "rejected" }))).toBe("rejected");
    expect(outcomeText(dialogOf({ status: "dismissed", outcome: "  " }))).toBe("dismissed");
  });
});

describe("formSpec", () => {
  it("gives single-select questions radios and multi-select ones checkboxes", () => {
    const [single, multi] = formSpec(dialogOf());
    expect(single).toMatchObject({ inputType: "radio", other: true, freeText: true });
    expect(multi).toMatchObject({ inputType: "checkbox", other: true, freeText: true });
  });

  it("adds Other only for free-text questions with options", () => {
    expect(questionSpec(question({ free_text: false }))).toMatchObject({
      other: false,
      freeText: false,
    });
    // Without options, words are the only way to answer, whatever the flag says.
    expect(questionSpec(question({ options: [], free_text: false }))).toMatchObject({
      other: false,
      freeText: true,
    });
  });

  it("starts from an empty draft, and keeps a saved one only while it fits", () => {
    const spec = formSpec(dialogOf());
    expect(emptyDraft(spec)).toEqual([draft(), draft()]);
    expect(draftFits(spec, [draft(), draft()])).toBe(true);
    expect(draftFits(spec, [draft()])).toBe(false);
    expect(draftFits(spec, undefined)).toBe(false);
  });
});

describe("typeText", () => {
  it("chooses Other instead of the option in a single-select question", () => {
    const spec = questionSpec(question());
    expect(typeText(spec, draft({ selected: ["A"] }), "MySQL")).toEqual(
      draft({ selected: [], other: true, text: "MySQL" }),
    );
  });

  it("chooses Other besides the options in a multi-select question", () => {
    const spec = questionSpec(question({ multi_select: true }));
    expect(typeText(spec, draft({ selected: ["A", "B"] }), "Sync")).toEqual(
      draft({ selected: ["A", "B"], other: true, text: "Sync" }),
    );
  });

  it("only records blank text, and leaves the choice alone", () => {
    const spec = questionSpec(question());
    expect(typeText(spec, draft({ selected: ["A"] }), "  ")).toEqual(
      draft({ selected: ["A"], text: "  " }),
    );
  });
});

describe("validation", () => {
  it("needs an option or typed text for every question", () => {
    const spec = formSpec(dialogOf());
    expect(validateDraft(spec, emptyDraft(spec))).toEqual([
      "Choose an option or type an answer.",
      "Choose an option or type an answer.",
    ]);
    expect(validateDraft(spec, [draft({ selected: ["SQLite"] }), draft()])).toEqual([
      null,
      "Choose an option or type an answer.",
    ]);
    expect(
      validateDraft(spec, [draft({ selected: ["SQLite"] }), draft({ other: true, text: "Sync" })]),
    ).toEqual([null, null]);
  });

  it("does not count blank text, nor text while Other is not chosen", () => {
    const spec = questionSpec(question());
    expect(questionError(spec, draft({ other: true, text: "   " }))).toMatch(/Other/);
    expect(questionError(spec, draft({ other: false, text: "typed, then unchosen" }))).not.toBe(
      null,
    );
  });

  it("words the error after what the question offers", () => {
    expect(questionError(questionSpec(question({ free_text: false })), draft())).toBe(
      "Choose an option.",
    );
    expect(
      questionError(questionSpec(question({ free_text: false, multi_select: true })), draft()),
    ).toBe("Choose at least one option.");
    expect(questionError(questionSpec(question({ options: [] })), draft())).toBe("Type an answer.");
    expect(questionError(questionSpec(question({ options: [] })), draft({ text: "x" }))).toBe(null);
  });
});

describe("buildAnswers", () => {
  const spec = formSpec(dialogOf());

  it("gives one answer per question, in order, with the chosen labels", () => {
    expect(
      buildAnswers(spec, [
        draft({ selected: ["SQLite"] }),
        draft({ selected: ["Auth", "Export"] }),
      ]),
    ).toEqual([{ selected: ["SQLite"] }, { selected: ["Auth", "Export"] }]);
  });

  it("adds trimmed text only when Other is chosen and something was typed", () => {
    const answers = buildAnswers(spec, [
      draft({ other: true, text: "  MySQL " }),
      draft({ selected: ["Auth"], other: true, text: "Sync" }),
    ]);
    expect(answers).toEqual([
      { selected: [], text: "MySQL" },
      { selected: ["Auth"], text: "Sync" },
    ]);
    const unchosen = buildAnswers(spec, [
      draft({ selected: ["Postgres"], text: "left over" }),
      draft({ selected: ["Auth"], other: true, text: " " }),
    ]);
    expect(unchosen).toEqual([{ selected: ["Postgres"] }, { selected: ["Auth"] }]);
    expect(unchosen[0]).not.toHaveProperty("text");
  });

  it("keeps a single-select answer single", () => {
    expect(buildAnswers(spec.slice(0, 1), [draft({ selected: ["SQLite", "Postgres"] })])).toEqual([
      { selected: ["SQLite"] },
    ]);
  });

  it("answers a text-only question with its text", () => {
    const only = [questionSpec(question({ options: [], free_text: false }))];
    expect(buildAnswers(only, [draft({ text: "42" })])).toEqual([{ selected: [], text: "42" }]);
  });
});
