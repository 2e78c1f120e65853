"""Task talk is not a memory: what a speaker says about the work in hand with the assistant
(requests, the next step, pasted code or links, a clause cut short) is neither proposed nor
admitted, while what they say about themselves, in English or Chinese, still is."""

from __future__ import annotations

import pytest

from conversation import proposed_quotes
from riko.language.content import carries_content, task_talk

#: Statements of this kind that Dream proposed from the shared conversation sets, read as not a memory.
TASK_TALK = [
    "I'll include all the necessary descriptions and visual aids, and keep updating it regularly",
    "I want to make sure I understand the formula derivation step-by-step",
    "I'm scheduled to explore them next, but first",
    "I've identified that I can use sigma notation to calculate this sum",
    "I'll also double-check my tools and clean them thoroughly",
    "Looking in indexes: https://pypi.org/simple, https://pypi.example.org/simple",
    "Question to PromptGPT: [My question",
    "My instruction was to find and *book* new, closer campsites",
    "Can you check my essay for grammar mistakes?",
    "So let me go through the steps again",
    "请帮我检查一下这段代码",
    "我想确认一下这个公式的推导",
    # one-off instructions and talk about the conversation itself, proposed before (one admitted as canon)
    "based on this discussion organize the criteria in a table with descriptions",
    "Looks like we're good to go",
    "We're good to go on those campsites",
    "We can move on to packing or a daily itinerary after we've confirmed these crucial aspects",
    "Since we already have the main outline",
    "The user wants to work on finalizing our travel plan",
    "The user is still sitting here, mate, waiting",
    "We're all good then",
    "For now, let's nail down this tracking system properly, as that's what we are focusing on",
    "I'm ready to dive into the data",
    "I'm back on deck now",
    "List three options with their costs",
    "根据上面的讨论，整理一个表格",
    "我们刚才说到预算",
    "整理一下这些内容",
]

ABOUT_THE_SPEAKER = [
    "I'm a nurse at the city hospital",
    "I play clarinet in a community band",
    "My mom is a hairdresser",
    "I prefer short answers",
    "Please don't use bullet points",
    "Please don't mention my ex",
    "I'm working on a thesis about coral reefs",
    "I'll start a new job in May",
    "I'm going to run a marathon next month",
    "I want to check out the new museum downtown",
    "I plan to visit Japan in the spring",
    "I volunteer at an LGBTQ+ youth center",
    "I was a worrywart back then",
    "I've decided to apply for a Canadian study visa instead of Jamaican due to better funding options",
    "I'll start with scheduling the first check-in with Brittney on March 1",
    "In my elementary school, they used to have pepperoni on them, nowadays i dont think so",
    "I'm back in Seattle for good",
    "I'm just getting ready to go out with friends",
    "Let's lock in the $8,500 budget for the trip",
    "I'm building a startup called Minutes, a platform that let's remote teams send voice messages",
    "Always use metric units for my recipes",
    "We adopted a dog last year",
    "我喜欢简单明了的回答",
    "我下个月要去上海出差",
    "我的妹妹在杭州工作",
]


#: Opening on a verb is not enough: what follows is about the speaker.
ABOUT_THE_SPEAKER_ON_A_VERB = ["Remember that I am vegetarian", "Tell me about my options at the hospital",
                               "Find it hard to sleep these days"]


@pytest.mark.parametrize("text", ABOUT_THE_SPEAKER_ON_A_VERB)
def test_an_instruction_that_names_the_speaker_is_not_task_talk(text: str) -> None:
    assert not task_talk(text)


@pytest.mark.parametrize("text", TASK_TALK)
def test_task_talk_is_recognised_and_carries_no_content(text: str) -> None:
    assert task_talk(text)
    assert not carries_content(text)


@pytest.mark.parametrize("text", ABOUT_THE_SPEAKER)
def test_what_a_speaker_says_of_themselves_is_not_task_talk(text: str) -> None:
    assert not task_talk(text)
    assert carries_content(text)


def test_a_multi_party_speaker_prefix_does_not_hide_task_talk() -> None:
    assert task_talk("Nicolas: Can you tell me the score again")
    assert not task_talk("Nicolas: I moved to Denver last spring")


def test_dream_proposes_the_facts_and_leaves_the_task_talk_out() -> None:
    lines = [*TASK_TALK, *ABOUT_THE_SPEAKER]
    quoted = proposed_quotes(lines)
    assert quoted & set(TASK_TALK) == set()
    assert quoted == set(ABOUT_THE_SPEAKER)  # each fact the speaker states of themselves, once
