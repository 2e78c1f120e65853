"""Concepts, payments, documents and exercises a working conversation writes in Title Case
("Construction Contracts", "Wire Transfers", "Payback Period", "Overhead Press", "End-of-Day
Check-in", "Self-Critique") name nothing; names beside them stay ("World Nomads Standard Plan",
"Golden Gate Bridge", "Whole Foods", "Microsoft Teams", "NBA Finals", "Moore's Law", a person, a
country, a salon named by common words)."""

from __future__ import annotations

import pytest

from riko.language.vocabulary import Vocabulary
from riko.review.entities import named_entities

# the words of a concept are written in lower case, the concept itself seldom or never: "construction"
# and "contracts", never "construction contracts"; "payback", "debit", "wire" never alone
WORK = [
    ("assistant", "Each contract sets the price, so read the contracts. Construction is slow: construction sites, "
                  "construction costs. Sign the contracts and keep the contracts. Pay by card: cards, debit or credit cards, store cards, transfers, "
                  "bank transfers, transfers. The period until the cost is repaid is the period that counts."),
    ("user", "I write about Construction Contracts, about Construction Contracts in Sydney, and on Construction "
             "Contracts daily. Is the Payback Period short, and is my Payback Period fine?"),
    ("assistant", "An overhead reach, an overhead shelf, overhead. Press the bar: a press, presses, press. Do the "
                  "Overhead Press slowly; with Overhead Press, and log Overhead Press. Law: the law of public bodies "
                  "is administrative; administrative work, law, law."),
    ("assistant", "A check-in at the end of the day: each check-in, a daily check-in, the end of a day, the end. "
                  "Log your End-of-Day Check-in, then the End-of-Day Check-in again. Critique yourself: a "
                  "self-critique, self checks, self review, critique, critique, critique, self. An evaluator checks "
                  "each rule of a pilot: the evaluator, a pilot, the pilot, rules, a rule."),
    ("assistant", "The World Nomads Standard Plan covers hiking. Contact World Nomads, or log in to World Nomads; "
                  "the world is big and a standard plan is a plan. Try Microsoft Teams, and Microsoft Word."),
    ("assistant", "The NBA Finals are close: two finals, the finals, finals. Moore's Law says chips double; a law. "
                  "Walk the Golden Gate Bridge; cross a bridge, the gate, the bridge. Shop at Whole Foods: whole "
                  "foods, whole grains. Base Coat is a salon: the base, the coat, a coat."),
    ("user", "I shop at Whole Foods, and Whole Foods is pricey. I might switch to Whole Foods for good."),
    ("user", "I met Lena at Base Coat, I love Base Coat, and I tip at Base Coat. I moved to Kenya. I use Google at work, and Google Docs."),
    ("assistant", "Business services cost money: services, shared services, finance, a finance team, business, "
                  "business. The margin is thin: a gross margin, margins, a margin. Try Amazon Web Services; "
                  "Amazon ships fast, and Amazon is big."),
]


def _named(text: str) -> set[str]:
    words = Vocabulary()
    words.add(WORK)
    return {e.name for e in named_entities(text, session=words)}


@pytest.mark.parametrize("text, junk", [
    ("I run a website about Construction Contracts in New South Wales.", "Construction Contracts"),
    ("We only accept Checks, ACH transfers or Wire Transfers.", "Wire Transfers"),
    ("We do not accept Credit Cards, Debit Cards, or PayPal.", "Debit Cards"),
    ("The Payback Period is approximately 3.56 years, which is acceptable.", "Payback Period"),
    ("I reckon I'll skip the Overhead Press too, just to be safe.", "Overhead Press"),
    ("I'll take one of my Administrative Law papers and format the first questions.", "Administrative Law"),
    ("The End-of-Day Check-in is something I'm already doing.", "End-of-Day Check-in"),
    ("We'll dive straight into developing that Pilot Rule Evaluator.", "Pilot Rule Evaluator"),
    ("Prep the Self-Critique module while I wrap this scene.", "Self-Critique"),
    ("I track my Operating Costs weekly.", "Operating Costs"),
])
def test_a_concept_in_title_case_names_nothing(text, junk):
    assert junk not in _named(text)


@pytest.mark.parametrize("text, name", [
    ("I've purchased the World Nomads Standard Plan for $150.", "World Nomads Standard Plan"),
    ("I'm meeting the team on Microsoft Teams today.", "Microsoft Teams"),
    ("I've been studying the NBA Finals plays.", "NBA Finals"),
    ("I wrote an essay on Moore's Law for class.", "Moore's Law"),
    ("I finally walked the Golden Gate Bridge with my husband.", "Golden Gate Bridge"),
    ("I'm worried about the Whole Foods membership.", "Whole Foods"),
    ("I got my nails done at Base Coat yesterday.", "Base Coat"),
    ("Lena said the venue is booked.", "Lena"),
    ("I moved to Kenya last year.", "Kenya"),
    ("I use Google for everything at work.", "Google"),
    ("Michele owns Sweet Crust Bakery, and I love it.", "Sweet Crust Bakery"),
    ("We host the app on Amazon Web Services.", "Amazon Web Services"),
])
def test_names_beside_concepts_stay(text, name):
    assert name in _named(text)



def test_a_dish_names_nothing():
    assert "Soufflé" not in {e.name for e in named_entities("Vanessa: I really love Soufflé", multi_party=True)}
