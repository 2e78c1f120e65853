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
    ("We agreed on the CalculationDelta compromise to keep one source of truth.", "CalculationDelta"),
    ("The IPromotionFilter now returns the delta.", "IPromotionFilter"),
    ("The Time-Lost-to-Queuing-Index is absolutely the critical path.", "Time-Lost-to-Queuing-Index"),
    ("我们定好了 CalculationDelta 的方案。", "CalculationDelta"),
])
def test_what_the_scope_writes_as_inline_code_names_nothing(text, junk):
    assert junk not in _named(text, _scope(CODE))


@pytest.mark.parametrize("text, name", [
    ("I want solutions that integrate with Kubernetes and OpenAI.", "Kubernetes"),
    ("I want solutions that integrate with Kubernetes and OpenAI.", "OpenAI"),
])
def test_a_product_written_in_prose_stays_though_code_calls_it(text, name):
    assert name in _named(text, _scope(CODE))


@pytest.mark.parametrize("text, junk", [
    ("Looking for movements like Pelvic Tilts or Glute Bridges makes more sense.", "Glute Bridges"),
    ("Looking for movements like Pelvic Tilts or Glute Bridges makes more sense.", "Pelvic Tilts"),
    ("I think the Payback Period is acceptable for us.", "Payback Period"),
])
def test_a_title_case_phrase_of_words_the_scope_writes_as_words_names_nothing(text, junk):
    assert junk not in _named(text, _scope(COACH))


@pytest.mark.parametrize("text, name", [
    ("I finally walked the Great Wall with my husband.", "Great Wall"),
    ("I bought the paint at Home Depot yesterday.", "Home Depot"),
])
def test_a_name_of_common_words_the_scope_seldom_writes_as_words_stays(text, name):
    assert name in _named(text, _scope(COACH))


@pytest.mark.parametrize("text, junk", [
    ("The focus on Trekkingplätze and farm shops is exactly what I want.", "Trekkingplätze"),
    ("The focus on farmers' markets and Hofläden is spot on.", "Hofläden"),
    ("I need those alternative Rifugio options we discussed.", "Rifugio"),
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


WORKOUT = [
    ("assistant", "Stand against the wall, arms up like angels: slide them down the wall, slow angels, ten angels. "
                  "Then planks: side planks, modified planks on the knees, short planks."),
    ("assistant", "Do the Wall Angels first, then the Modified Side Planks. Log the Wall Angels daily and the "
                  "Modified Side Planks twice a week."),
]


@pytest.mark.parametrize("text, junk", [
    ("I really like the Modified Side Planks, they are a smart addition.", "Modified Side Planks"),
    ("We standardized the plan to 12 reps of Wall Angels, three times daily.", "Wall Angels"),
])
def test_an_exercise_named_by_its_movement_names_nothing(text, junk):
    assert junk not in _named(text, _scope(WORKOUT))


def test_a_team_named_after_angels_stays():
    assert "Los Angeles Angels" in _named("We watched the Los Angeles Angels play.", _scope(WORKOUT))


# a cooking and shopping conversation: shops named by common words, written without "the"
SHOPS = [
    ("assistant", "Buy fresh whole grains and whole foods; a sweet crust needs a cold bakery-style dough. Farmers "
                  "sell sprouts at the market, and any fresh market has them. Whole grains, whole milk, sweet "
                  "potatoes, a sweet crust, a crust of bread, the bakery near you, the market, the farmers."),
    ("user", "I shop at Whole Foods and at Sweet Crust Bakery. Whole Foods is pricey, Sweet Crust Bakery is not."),
    ("user", "I might switch to Whole Foods for good, or to Sweet Crust Bakery, and I love Whole Foods."),
]


@pytest.mark.parametrize("text, name", [
    ("I'm worried about the $60 monthly Whole Foods membership.", "Whole Foods"),
    ("Michele owns Sweet Crust Bakery, what can I learn from her?", "Sweet Crust Bakery"),
])
def test_a_business_named_by_common_words_written_without_the_stays(text, name):
    assert name in _named(text, _scope(SHOPS))


def test_a_quoted_book_title_stays():
    words = _scope([("assistant", "Keep the score: your body keeps track. Score each day, the body score, a "
                                  "daily score, the score of your body, keeps, keeps, keeps.")])
    assert "The Body Keeps the Score" in _named("I've been reading \u201cThe Body Keeps the Score\u201d by Bessel "
                                                "van der Kolk.", words)


def test_a_product_the_prose_names_stays_though_once_set_as_code():
    words = _scope([("assistant", "Use Redis for the cache. Redis keeps keys in memory; configure `Redis` with a TTL. "
                                  "Redis is fast.")])
    assert "Redis" in _named("I've decided to use Redis for caching.", words)


def test_a_product_that_leads_names_stays():
    words = _scope([("assistant", "Install the Python SDK, the Python Docs and Python Script helpers. In Python, "
                                  "indent with spaces; python runs it, and python -V shows the version."),
                    ("user", "I use Python daily, Python is great, and I like Python.")])
    assert "Python" in _named("I feel I've got a good handle on the basics of Python.", words)


def test_a_name_led_by_an_ing_word_written_mid_sentence_stays():
    words = _scope([("assistant", "Seeking advice is fine; keep seeking, and seeking data. Check Seeking Alpha, "
                                  "and read Seeking Alpha daily.")])
    assert "Seeking Alpha" in _named("I'll check out Seeking Alpha for market insights.", words)


def test_a_product_the_text_says_is_called_so_stays():
    words = _scope([("assistant", "A water gel with a hydro boost: the gel holds water, a boost of water, hydro "
                                  "gels, water gels, boost, boost. Try the Hydro Boost Water Gel; the Hydro Boost "
                                  "Water Gel is light.")])
    assert "Hydro Boost Water Gel" in _named("The cream is called the Hydro Boost Water Gel.", words)


def test_a_job_title_led_by_project_is_no_project():
    words = _scope([("assistant", "A project lead leads the project; the lead of a project, a lead, the lead, a project. "
                                  "Talk to the Project Lead, and the Project Lead decides.")])
    assert "Project Lead" not in _named("I'll ask the Project Lead tomorrow.", words)



def test_an_event_an_acronym_leads_stays():
    words = _scope([("assistant", "The finals are close: two finals, the finals week, finals. Watch the NBA Finals "
                                  "and the NBA Finals replay.")])
    assert "NBA Finals" in _named("I've been studying the NBA Finals plays.", words)


@pytest.mark.parametrize(("text", "name", "cut"), [
    ("Look at top-tier sources: Sotheby's, Christie's, MoMA, that calibre.", "Christie's", "Christie"),
    ("I went to Macy's and bought shoes.", "Macy's", "Macy"),
    ("I love Trader Joe's.", "Trader Joe's", "Trader Joe"),
])
def test_a_possessive_that_owns_nothing_is_the_shops_own_name(text, name, cut):
    names = {e.name for e in named_entities(text)}
    assert name in names and cut not in names


def test_a_possessive_before_what_it_owns_names_the_owner():
    assert {e.name for e in named_entities("We had dinner with my sister Lena's husband Tom.")} >= {"Lena", "Tom"}
