"""Cue families in English and Chinese, table-driven: natural phrasings, and their negations.

The tool cues (forget, suppress, restore, a change over time) guard every write a tool makes;
the planner cues (correction, explicit recall, historical, utility) decide where recall looks.
"""

from __future__ import annotations

import pytest

from riko.recall.planner import _has
from riko.language.text import normalize
from riko.tools import has_cue, looks_temporal

TOOL_CUES = {
    ("forget", "en"): (
        ["Please forget that I like green tea", "forget about the bakery thing", "delete the note about my ex",
         "erase what I said about my job", "wipe that memory", "remove the thing about my sister",
         "drop the thing about my old flat", "scratch that, forget it", "don't remember that",
         "stop remembering my address", "get rid of the memory about the gym",
         "never mind, forget I said that", "can you forget what I told you about Tom"],
        ["Don't forget my birthday", "never forget our anniversary", "I forgot my keys again",
         "I won't forget", "please don't delete anything", "I deleted the app yesterday",
         "please remember my birthday", "I didn't say to forget it", "do not ever forget this",
         "you will not forget my name, right?"]),
    ("forget", "zh"): (
        ["请忘记我喜欢绿茶", "忘了这件事吧", "把这条删掉", "这个就别记了", "删除关于我前任的记忆",
         "别记着这个了", "把我住址那条抹掉", "不要记这个", "忘掉我说的那句话", "把那条记忆清除",
         "帮我把这个删了", "你就当我没说过"],
        ["别忘了我的生日", "千万别忘记", "我没说要忘掉这个", "不要删除", "我忘了带钥匙", "我不会忘记的",
         "别删", "记住我的生日", "你不能忘了这个", "我没让你删"]),
    ("suppress", "en"): (
        ["Please don't mention my job", "stop bringing up the divorce", "never mention my ex again",
         "don't bring that up again", "stop talking about my weight", "can you not mention the bakery anymore",
         "I'd rather you didn't bring up my dad", "please stop reminding me about the exam",
         "no more talk about the wedding", "hide the note about my diet", "don't remind me of that",
         "leave my ex out of it from now on"],
        ["You can mention my job", "I mentioned my job yesterday", "feel free to bring it up",
         "did I mention my job?", "I don't mind if you mention it", "bring up the chart please",
         "unhide it", "it's ok to talk about my weight", "remind me about the exam", "mention it whenever"]),
    ("suppress", "zh"): (
        ["以后别跟我说这个", "别再提我前任了", "不要再提面包店", "以后别提这件事", "别再说我胖了",
         "不要提醒我考试的事", "别再跟我提工作", "这个话题以后别聊了", "别再讲这个了", "把这条隐藏起来",
         "以后不要再提起他", "别老提这个"],
        ["可以再提面包店了", "我提过面包店吗", "你可以提这个", "我没说不让你提", "别忘了提醒我开会",
         "提醒我明天开会", "我们聊聊工作吧", "取消隐藏", "说说这个吧", "你提一下也没关系"]),
    ("restore", "en"): (
        ["You can mention my job again", "bring the tea thing back", "it's ok to mention the bakery now",
         "feel free to mention my ex again", "restore the note about my diet", "unhide the gym memory",
         "you can bring up my dad again", "go ahead and mention the wedding again",
         "it's fine to talk about my job again", "I'm okay with you mentioning it again",
         "undo the suppression on the bakery"],
        ["don't mention it", "don't bring it back", "never bring that up again", "I can't mention it at work",
         "you can't mention my job", "hide it", "stop bringing it up", "no more talk about it",
         "I restored an old car once, never mind", "please don't talk about my job"]),
    ("restore", "zh"): (
        ["可以再提面包店了", "恢复那条记忆", "取消隐藏", "以后可以提我的工作了", "现在可以聊这个了",
         "没关系，可以说了", "你可以再跟我说这个了", "把那条恢复", "可以重新提起他了", "那件事可以提了"],
        ["不可以提面包店", "别再提了", "不能提这个", "你不要再说了", "以后别跟我说这个", "隐藏这条",
         "别恢复", "不要恢复那条", "这个别聊了", "我不想恢复"]),
}


@pytest.mark.parametrize("family,lang", sorted(TOOL_CUES))
def test_tool_cues(family, lang):
    positives, negatives = TOOL_CUES[(family, lang)]
    assert len(positives) >= 10 and len(negatives) >= 10
    missed = [t for t in positives if not has_cue(family, t)]
    wrong = [t for t in negatives if has_cue(family, t)]
    assert not missed and not wrong, (missed, wrong)


TRANSITIONS = {
    "en": (["I now live in Porto", "I no longer eat meat", "I moved to Berlin", "I switched to decaf",
            "These days I work from home", "I don't smoke anymore", "I changed to the night shift",
            "Nowadays I cycle to work", "I'm not vegetarian any more", "I quit my job at the bank",
            "I started running in the mornings"],
           ["I live in Porto", "I like green tea", "I work at the bakery", "I have two cats", "I run every morning",
            "I was born in Lisbon", "I eat meat", "My sister is a nurse", "I drink decaf", "I cycle to work"]),
    "zh": (["我现在住在波尔图", "我不再吃肉了", "我搬到了柏林", "我改喝低因咖啡了", "如今我在家办公",
            "我已经不抽烟了", "我换成夜班了", "目前我骑车上班", "我戒了烟", "我开始晨跑了"],
           ["我住在波尔图", "我喜欢绿茶", "我在面包店工作", "我有两只猫", "我每天早上跑步", "我出生在里斯本",
            "我吃肉", "我姐姐是护士", "我喝低因咖啡", "我骑车上班"]),
}


@pytest.mark.parametrize("lang", sorted(TRANSITIONS))
def test_temporal_transition_cues(lang):
    positives, negatives = TRANSITIONS[lang]
    assert len(positives) >= 10 and len(negatives) >= 10
    assert [t for t in positives if not looks_temporal(t)] == [] and [t for t in negatives if looks_temporal(t)] == []


PLANNER_CUES = {
    ("correction", "en"): (
        ["Actually, I live in Porto now", "That's wrong, my sister is a nurse", "correction: the meeting is Friday",
         "I was mistaken about the date", "you got that wrong", "no, that's not right any more",
         "let me fix that", "update: I changed jobs", "that's incorrect", "I misspoke earlier"],
        ["I live in Porto", "What's the weather like?", "I like green tea", "tell me a joke",
         "my sister is a nurse", "what did I say about tea?", "I went to Lisbon", "the meeting is Friday",
         "how are you?", "I was right about the date"]),
    ("correction", "zh"): (
        ["其实我住在波尔图", "不对，我姐姐是护士", "更正一下，会议在周五", "我搞错了日期", "你记错了",
         "我说错了", "纠正一下", "实际上我换工作了", "改成周五吧", "这个不对"],
        ["我住在波尔图", "今天天气怎么样", "我喜欢绿茶", "讲个笑话", "我姐姐是护士", "我说过茶的事吗",
         "我去了里斯本", "会议在周五", "你好吗", "我记得那天"]),
    ("explicit_recall", "en"): (
        ["Do you remember my sister's name?", "remind me what I said about tea", "did I tell you about my trip?",
         "what did I say about the bakery?", "I told you about my job, right?", "have I mentioned my dog?",
         "can you recall my favourite book?", "you remember that I moved, right?", "what did I share about Tom?",
         "did I mention my allergy?"],
        ["What's the capital of France?", "tell me a joke", "I like green tea", "how do I bake bread?",
         "what time is it?", "translate this to French", "I went to Lisbon", "write a poem about tea",
         "explain recursion", "good morning"]),
    ("explicit_recall", "zh"): (
        ["你还记得我姐姐的名字吗", "提醒我一下我说过的茶", "我跟你说过我的旅行吗", "我提过我的狗吗",
         "你记得我搬家了吗", "回忆一下我最喜欢的书", "我告诉过你我的工作吗", "我说过面包店的事吗",
         "我和你说过汤姆吗", "你想起我说的过敏了吗"],
        ["法国的首都是哪里", "讲个笑话", "我喜欢绿茶", "怎么烤面包", "现在几点", "把这句翻译成法语",
         "我去了里斯本", "写一首关于茶的诗", "解释一下递归", "早上好"]),
    ("historical", "en"): (
        ["Where did I use to live?", "what was my job before?", "what did I previously drink?",
         "back then, what car did I drive?", "what did I do in the past?", "what was my address formerly?",
         "what did I originally study?", "at the time, who was my manager?", "did I use to smoke?",
         "what was my old number before the move?"],
        ["Where do I live?", "what is my job?", "what do I drink?", "what car do I drive?", "what do I do now?",
         "what's my address?", "what do I study?", "who is my manager?", "do I smoke?", "what is my number?"]),
    ("historical", "zh"): (
        ["我以前住在哪里", "我之前做什么工作", "我曾经喝什么", "当时我开什么车", "我从前学什么",
         "我原来的地址是什么", "那时候我的经理是谁", "我以前抽烟吗", "我之前的号码是多少", "我曾经养过猫吗"],
        ["我住在哪里", "我做什么工作", "我喝什么", "我开什么车", "我学什么", "我的地址是什么",
         "我的经理是谁", "我抽烟吗", "我的号码是多少", "我养猫吗"]),
    ("utility", "en"): (
        ["Explain how photosynthesis works", "translate 'good morning' into French", "write a python function to sort a list",
         "what does 'ephemeral' mean?", "calculate 17 times 23", "how do I reverse a string in javascript?",
         "define entropy", "summarize this article", "convert 5 miles to km", "what is a black hole?"],
        ["what's my sister's name?", "do you remember my trip?", "I like green tea", "where do I live?",
         "what did I say about my job?", "I went hiking yesterday", "my dog is sick", "how was my week?",
         "did I tell you about Tom?", "what is my favourite book?"]),
    ("utility", "zh"): (
        ["解释一下光合作用", "把早上好翻译成法语", "写一个排序的函数", "这个词是什么意思", "计算17乘23",
         "用代码怎么反转字符串", "熵的定义是什么", "总结一下这篇文章", "5英里换算成公里", "什么是黑洞"],
        ["我姐姐叫什么", "你记得我的旅行吗", "我喜欢绿茶", "我住在哪里", "我说过我的工作吗", "我昨天去爬山了",
         "我的狗生病了", "我这周过得怎么样", "我跟你说过汤姆吗", "我最喜欢的书是哪本"]),
}


@pytest.mark.parametrize("family,lang", sorted(PLANNER_CUES))
def test_planner_cues(family, lang):
    positives, negatives = PLANNER_CUES[(family, lang)]
    assert len(positives) >= 10 and len(negatives) >= 10
    missed = [t for t in positives if not _has(family, normalize(t))]
    wrong = [t for t in negatives if _has(family, normalize(t))]
    assert not missed and not wrong, (missed, wrong)


# -- token patterns: inserted modifiers and negation scope ----------------------------------------------
INSERTIONS = {
    # (family, phrase with a {} slot, modifiers that may fill it, a negated form)
    ("suppress", "please don't {} mention my job", "Could you not mention my job? I didn't say don't mention it"),
    ("suppress", "别{}提我前任了", "我没说别提我前任"),
    ("forget", "please {} forget what I said about my ex", "please don't {} forget what I said about my ex"),
    ("forget", "把那条{}删掉吧", "别把那条{}删掉"),
    ("restore", "you can {} mention my job again", "you can't {} mention my job again"),
    ("remember", "please {} remember that I'm vegetarian", "please don't {} remember that I'm vegetarian"),
}
EN_FILL = ["", "really", "just", "ever", "kindly", "honestly", "really just"]
ZH_FILL = ["", "再", "就", "一定", "千万", "一下"]


@pytest.mark.parametrize("family,phrase,negated", sorted(INSERTIONS))
def test_cues_tolerate_inserted_modifiers_and_respect_negation(family, phrase, negated):
    fills = ZH_FILL if any("\u4e00" <= ch <= "\u9fff" for ch in phrase) else EN_FILL
    for fill in fills:
        text = " ".join(phrase.format(fill).split()) if "{" in phrase else phrase
        assert has_cue(family, text), text
        if family != "suppress":  # a suppression is itself a negation; its double negation is checked below
            other = " ".join(negated.format(fill).split())
            assert not has_cue(family, other), other
    if family == "suppress":
        assert not has_cue("suppress", "I don't mind if you mention my job")
        assert not has_cue("suppress", "我没说不让你提")


def test_unseen_cue_holdout_meets_its_floor_per_family():
    # written before the token patterns (first run: remember R 0, suppress R .625, restore
    # P .786 / R .55, explicit recall R .575, protected R .875); now in-sample, kept as a gate
    from riko.evaluation.labelled import run_labelled

    report = run_labelled("cues.holdout")
    assert report.shortfalls() == [], report.text()


def test_second_cue_holdout_keeps_its_figures_per_family():
    # first run, unseen by the token patterns: remember R .55, forget P .81 / R .85, suppress
    # R .95, restore R .75, explicit recall R .85, protected P .905 / R .95; the misses then
    # shaped a few patterns, so these floors are in-sample regression gates, not a hold-out
    from riko.evaluation.labelled import run_labelled

    report = run_labelled("cues.holdout2")
    floors = {"remember": (1.0, 1.0), "forget": (0.85, 1.0), "suppress": (1.0, 1.0), "restore": (1.0, 1.0),
              "explicit_recall": (1.0, 0.85), "protected": (0.9, 0.95)}
    for family, (precision, recall) in floors.items():
        score = report.classes[family]
        assert score.precision is not None and score.precision >= precision, (family, report.text())
        assert score.recall is not None and score.recall >= recall, (family, report.text())


@pytest.mark.parametrize("request_text", ["Please don't really bring up rock climbing anymore",
                                          "以后别老是跟我提攀岩了，我不喜欢攀岩"])
def test_memory_suppress_accepts_a_request_with_an_adverb_inside_the_verb_phrase(tmp_path, clock, request_text):
    # the probe: the same request without the adverb worked; with it the tool refused
    import riko
    from riko.tools import ToolBox

    with riko.open(tmp_path, preset="companion", clock=clock, config={"embedding_provider": "off"}) as mem:
        page = mem.create_page("攀岩 rock climbing", "I love rock climbing (攀岩)", description="I love rock climbing 攀岩")
        mem.capture({"session_id": "s1", "type": "user/message",
                     "data": {"message": {"role": "user", "content": request_text}}})
        result = ToolBox(mem, "s1").call("memory_suppress", {"id": page.id})
        assert result.ok, result.error
        assert mem.page(page.id).usage_policy == "suppressed"
