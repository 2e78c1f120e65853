"""Entities in long user–assistant project dialogues (RealMem, BEAM): capitalised topics, job
titles, labels, products with a version and hyphenated participles name no person, pet or place;
real people, pets, cities, companies and projects keep their kind (``riko.language.derive``)."""

from __future__ import annotations

import pytest

from riko.language.derive import derive
from riko.review.entities import named_entities


def _found(text: str) -> dict[str, str]:
    return {e.name: e.kind for e in derive(text).entities}


@pytest.mark.parametrize("text, junk", [
    # a Title-Case topic or heading that ends in an abstract noun
    ("Topic/Keyword: Fire Alarm Installation", "Fire Alarm Installation"),
    ("lets start from Tax Revenue Collection (TRC", "Tax Revenue Collection"),
    ("I'm working on adding consent management for users as part of GDPR Compliance for the app", "GDPR Compliance"),
    ("I've been thinking about what we discussed, about Radical Acceptance", "Radical Acceptance"),
    ("Core milestones: Advisor Selection, PPM Drafting, SPV Incorporation, First Close", "SPV Incorporation"),
    # a job title
    ("I had a chance to review the Development Director job description", "Development Director"),
    ("My current role is Middle Manager at a major trading company here in Tokyo", "Middle Manager"),
    ("Reporting to the Senior Content Writer, I draft the posts", "Senior Content Writer"),
    # a label: quoted or not, before "flag", "section", "sections"
    ("mark any feature that cannot be verified with a 'Human Verification Required' flag", "Human Verification Required"),
    ("I'll keep an eye out for any \"Deal of the Day\" or \"Limited Time Offer\" sections", "Limited Time Offer"),
    ("I'm ready to tackle the Marketing Rhetoric Analysis section", "Marketing Rhetoric Analysis"),
    # a participle after a hyphen
    ("I'm trying to expand my Cypress tests to cover Kubernetes-deployed frontend integration", "Kubernetes-deployed"),
    ("the NVIDIA CUDA 11.7 base image for GPU-accelerated inference", "GPU-accelerated"),
    # what is left of "St. Louis" cut at its dot
    ("I talk to my son John, who's 38 and lives in St", "St"),
    # one long gerund or abstract noun, days joined by hyphens, a bullet's first word
    ("Working principles of Scheduling in Grid computing", "Scheduling"),
    ("detailed note on Constructing a Hypothesis", "Constructing"),
    ("Education Level and Occupation matter here", "Occupation"),
    ("I think I've definitely developed my Organization skills", "Organization"),  # its own word is no cue
    ("Cash Float (Business Operations): NGN 500,000", "Business Operations"),
    ("The standard Monday-Wednesday-Friday won't work for me", "Monday-Wednesday-Friday"),
    ("○ Make sure we have all the stakeholders on board", "Make"),
])
def test_topics_titles_and_labels_are_no_entity(text, junk):
    assert junk not in _found(text)


@pytest.mark.parametrize("text, name, kind", [
    # a product before its version is no person
    ("I've implemented OAuth 2.0 PKCE flow, tested with Postman v10.15.0", "Postman", "other"),
    ("I've initialized my backend with Express v4.18.2 on port 3000", "Express", "other"),
    ("I'm configuring a server with Gunicorn v20.1.0 and Nginx", "Gunicorn", "other"),
    # a CamelCase word is no place
    ("I'm seeing errors related to the InferenceSession creation", "InferenceSession", "other"),
    # someone spoken or written to is a person, not a place
    ("I'll definitely talk to Ryan tomorrow", "Ryan", "person"),
    ("I decided to write a letter to Lori on April 26", "Lori", "person"),
])
def test_products_and_people_spoken_to_get_their_kind(text, name, kind):
    assert _found(text).get(name) == kind


@pytest.mark.parametrize("text, name, kind", [
    ("Kenta Tanaka works at Sony in Tokyo.", "Kenta Tanaka", "person"),
    ("I met with Tom Baker yesterday", "Tom Baker", "person"),  # a job noun as a surname, with a person cue
    ("Our dog Max loves the beach", "Max", "pet"),
    ("I'm going to Boston next week", "Boston", "place"),
    ("I flew to Ho Chi Minh City last spring", "Ho Chi Minh City", "place"),
    ("Let's go with shifting the main night to Mount Cook", "Mount Cook", "place"),
    ("The parent company Acadian Construction is based in New Brunswick", "Acadian Construction", "other"),
    ("Kenta Tanaka joined Sony", "Sony", "other"),
    ("I'm building the Vendor Intake Playbook for my agents", "Vendor Intake Playbook", "project"),
    ("I'm studying the Donghak Peasant Revolution for my exam", "Donghak Peasant Revolution", "other"),
    ("I use GitHub Actions for CI", "GitHub Actions", "other"),
    ("Hugh Jackman being a gent for Jennifer Lawrence at the show", "Jennifer Lawrence", "other"),
    ("My favourite movie is Paranormal Activity", "Paranormal Activity", "other"),
    ("I had a look at Sustaining Action's mission statement", "Sustaining Action", "other"),
    ("I'll travel to Paris with Jean-Luc", "Jean-Luc", "person"),
    ("Nest, and Wangfujing really need a full break", "Wangfujing", "other"),  # a Chinese name's -jing
    ("The chart I'm thinking of is Figure 3 from Bourdieu's *Distinction*", "Distinction", "other"),
    ("I've published it on Confluence last week", "Confluence", "other"),
    ("I am curious about Buddhism and Zen", "Buddhism", "other"),
])
def test_real_names_stay_entities(text, name, kind):
    assert _found(text).get(name) == kind


def test_a_relative_and_a_pet_stay_linked_to_the_user():
    named = {e.name: e for e in named_entities("My sister Lena and our cat Luna moved to Berlin")}
    assert named["Lena"].kind == "person" and "my sister" in named["Lena"].aliases
    assert named["Luna"].kind == "pet"
    assert named["Berlin"].kind == "place"


def test_chinese_names_are_unchanged():
    found = _found("我妹妹小雨住在柏林，她和李强是同事。")
    assert found.get("小雨") == "person" and found.get("Berlin") == "place" and found.get("李强") == "person"
