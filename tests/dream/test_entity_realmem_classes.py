"""What RealMem's working conversations capitalise without naming anything: code identifiers and
metrics the scope writes as inline code, Title-Case phrases made of words the scope writes as
words more often than it writes the phrase (exercises, metrics, milestones), foreign common nouns
(German plural compounds, a word that heads many names and is also written in lower case), and
labels and headings (a bracketed status, a sector, a role before "of", an adverb, a pronoun, a
department). Real names beside them stay: products written in prose, names whose words the scope
seldom writes in lower case, places that end like a common noun, people."""

from __future__ import annotations

import pytest

from riko.language.vocabulary import Vocabulary
from riko.review.entities import named_entities

# a software conversation: identifiers and a metric in inline code, products in prose
CODE = [
    ("user", "The `OrderContext` schema is done. Now the `IPromotionFilter` must return a `CalculationDelta`."),
    ("assistant", "Here is `IPromotionFilter` with a `CalculationDelta` record. The `Time-Lost-to-Queuing-Index` "
                  "metric stays the critical path. We deploy on Kubernetes and call OpenAI through its SDK."),
    ("assistant", "```python\nclient = OpenAI()\nclass CalculationDelta: ...\n```\nKubernetes handles the rest."),
    ("user", "我们把 `CalculationDelta` 写进了接口。"),
]
# a fitness and finance conversation: exercises and metrics in Title Case, their words in lower case
COACH = [
    ("assistant", "Start with bridges: lie down, squeeze your glute, lift. Two sets of glute bridges, then pelvic "
                  "tilts. Keep the glute tight on every bridge; a tilt of the pelvis is small."),
    ("assistant", "Your Glute Bridges look solid. Add Pelvic Tilts after them."),
    ("assistant", "More bridges: single-leg bridges, banded bridges, glute bridges with a pause and a glute squeeze. "
                  "Then pelvic tilts, slow tilts, small tilts, pelvic floor work and a pelvic brace."),
    ("user", "I did the Glute Bridges and the Pelvic Tilts today. What is a payback, by the way?"),
    ("assistant", "The Payback Period is 3.5 years: the period until the payback covers the cost. A short period "
                  "means a quick payback. Your Payback Period beats the target period, so the Payback Period is fine."),
    ("assistant", "After the workout, we drove past the Great Wall. Wander along the Great Wall early; the Great "
                  "Wall is quiet at dawn. Later, pick up paint at Home Depot, and compare prices with Home Depot."),
    ("user", "I love the Great Wall. It was great. Great views, great food, a great day."),
]
# a cycling trip in Germany and a hut trek in Italy
TRIP = [
    ("assistant", "Look for Trekkingplätze (trekking sites) and Hofläden (farm shops) near Rostock. Meet at "
                  "Alexanderplatz, then the Viktualienmarkt in Munich."),
    ("assistant", "Each rifugio is a mountain hut. Book Rifugio Fanes, Rifugio Averau and Rifugio Scoiattoli "
                  "early; a rifugio fills up fast, and every rifugio takes cash. Rifugio Lagazuoi is the highest."),
    ("user", "I need alternative Rifugio options, and the rifugio near Cortina."),
]


def _scope(*sessions) -> Vocabulary:
    words = Vocabulary()
    for lines in sessions:
        words.add(lines)
    return words


def _named(text: str, words: Vocabulary | None = None) -> set[str]:
    return {e.name for e in named_entities(text, session=words)}


@pytest.mark.parametrize("text, junk", [
    ("The focus on Trekkingplätze and farm shops is exactly what I want.", "Trekkingplätze"),
    ("The focus on farmers' markets and Hofläden is spot on.", "Hofläden"),
])
def test_a_foreign_common_noun_names_nothing(text, junk):
    assert junk not in _named(text, _scope(TRIP))


@pytest.mark.parametrize("text, name", [
    ("We meet at Alexanderplatz at noon.", "Alexanderplatz"),
    ("I loved the Viktualienmarkt in Munich.", "Viktualienmarkt"),
    ("I noticed the pictures of Rifugio Fanes do not match.", "Rifugio Fanes"),
    ("I'm cycling on to Rostock tomorrow.", "Rostock"),
])
def test_foreign_names_stay(text, name):
    assert name in _named(text, _scope(TRIP))


@pytest.mark.parametrize("text, junk", [
    ("Explicitly mark it [Blocked] because this needs a decision.", "Blocked"),
    ("We are a post Series C startup in the Edtech industry.", "Edtech"),
    ("We are a software agency with a focus in Fintech.", "Fintech"),
    ("我们是一家做 Fintech 的公司。", "Fintech"),
    ("The studio has the most reliable Wi-Fi in town.", "Wi-Fi"),
    ("Most Importantly, the people I used to talk to are gone.", "Importantly"),
    ("Nobody made a fuss, but it was the first time.", "Nobody"),
    ("\u201cI do not see how it can,\u201d the Judge answered.", "Judge"),
    ("I just spent a day with Marketing on promotion stacking.", "Marketing"),
    ("We've been offered a chance to present to the President of Kenya.", "President of Kenya"),
])
def test_labels_sectors_and_roles_name_nothing(text, junk):
    assert junk not in _named(text)


@pytest.mark.parametrize("text, name", [
    ("We've been offered a chance to present to the President of Kenya.", "Kenya"),
    ("I spent a day with Marketa at the office.", "Marketa"),
    ("Emily said the venue is booked.", "Emily"),
    ("I met Grace at the station.", "Grace"),
    ("My friend works at Logitech in Lausanne.", "Logitech"),
])
def test_names_beside_labels_stay(text, name):
    assert name in _named(text)


@pytest.mark.parametrize("text, junk", [
    ("My sister is recovering well now, thank God.", "God"),
    ("God knows how long the visa will take.", "God"),
])
def test_an_exclamation_names_no_one(text, junk):
    assert junk not in _named(text)


def test_a_faith_named_stays():
    assert "God's Flame" in _named("The One God's Flame is a highly patriarchal religion.")
