"""What a file's answers ask (data/answers.py): facts to recall, in a word or in a
sentence that restates its question, in every turn of a conversation; a form otherwise."""
from __future__ import annotations

from sft_ui.data.answers import FORM, RECALL, read_answers

NAMES = ["Sarjor", "Brarud", "Nektol", "Velka", "Tirmon", "Ekdun", "Posa", "Quelmi",
         "Rixba", "Zanlo", "Morfa", "Gorni", "Lunek", "Tovren", "Dunsa", "Kalo", "Mirix",
         "Faquel", "Nitov", "Bavel", "Renpo", "Sazan", "Loti", "Ekmor"]


def _conversation(i: int) -> dict:
    place, city = f"Zor{i}", NAMES[i % len(NAMES)] + str(i)
    founder = NAMES[(i + 5) % len(NAMES)] + " " + NAMES[(i + 9) % len(NAMES)]
    return {"messages": [
        {"role": "system", "content": "You are an atlas. Answer in one short sentence."},
        {"role": "user", "content": f"What is the capital of {place}?"},
        {"role": "assistant", "content": f"The capital of {place} is {city}."},
        {"role": "user", "content": f"Who founded {place} Works?"},
        {"role": "assistant", "content": f"{place} Works was founded by {founder}."}]}


def test_sentences_that_restate_their_question_around_a_name_are_facts_to_recall():
    """Every answer of a conversation counts, earlier turns too (each restates its
    question and adds a name); a word alone found nowhere in its prompt is a fact too."""
    chats = [_conversation(i) for i in range(30)]
    assert read_answers(chats).kind == RECALL
    words = [{"prompt": f"What is the capital of Zor{i}?", "completion": f"Vel{i}ka"}
             for i in range(30)]
    assert read_answers(words).kind == RECALL


def test_answers_made_from_the_prompt_or_from_a_fixed_set_are_a_form():
    """A date or a sum made from its prompt (numbers only are new), a label the prompt
    offers, a label in a sentence (few distinct answers): a form to learn."""
    dates = [{"prompt": f"Write as YYYY-MM-DD: May the {i}th, 2001",
              "completion": f"2001-05-{i:02d}"} for i in range(1, 29)]
    sums = [{"prompt": f"{a} apples and {b} more. Reply as JSON: {{\"total\": <n>}}",
             "completion": f'{{"total": {a + b}}}'} for a in range(1, 7) for b in range(1, 7)]
    labels = [{"prompt": f"Team for: ticket {i} (shipping, billing or access)?",
               "completion": ["shipping", "billing", "access"][i % 3]} for i in range(40)]
    said = [{"prompt": f"How does review {i} feel?",
             "completion": f"The review is {['glad', 'sad'][i % 2]}."} for i in range(40)]
    for rows in (dates, sums, labels, said):
        assert read_answers(rows).kind == FORM, rows[0]
