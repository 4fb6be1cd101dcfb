"""Group words of each CrowS-Pairs bias type, for the lint's ``group-absent`` rule (English only).

CrowS-Pairs (Nangia et al. 2020) has no group-term column: a pair's two sentences differ in the
words that name the group (``black`` / ``white``, ``he`` / ``she``), and the annotation says
only which bias type the pair is about. So the lint asks whether the edit holds a word of that
type's list below: a pair whose edit names no such word (labelled ``disability`` but swapping
``white`` for ``black``; or swapping ``kind`` for ``mean``) is one to read.

These lists are a fact list written by hand: the group nouns, adjectives, pronouns and kin
terms English uses for each type, plus the markers CrowS-Pairs' writers reached for (occupations
for socio-economic status, numbers for age). They were written after reading the most frequent
edited words of the original English set, so they are not held out from it; docs/lint.md gives
the rule's precision read by hand. For race, gender, nationality, religion and sexual
orientation a capitalised word in the edit also counts (``GROUP_PATTERNS``): names (Jamal /
Jake, Mary / John) and proper nouns carry those groups, and no list can hold them all; a number
counts for age and appearance. The French sets get no list (the words are English): the rule
does not apply to them.
"""

from __future__ import annotations

_GENDER = ("he", "she", "him", "her", "his", "hers", "himself", "herself", "man", "men", "woman", "women",
           "boy", "girl", "male", "female", "mr", "mrs", "ms", "miss", "sir", "madam", "ma", "father",
           "mother", "dad", "mom", "mum", "son", "daughter", "brother", "sister", "husband", "wife", "boyfriend",
           "girlfriend", "uncle", "aunt", "nephew", "niece", "king", "queen", "gentleman", "gentlemen", "lady",
           "ladies", "guy", "gal", "trans", "transgender", "cis", "cisgender", "nonbinary", "masculine",
           "feminine", "grandfather", "grandmother", "grandpa", "grandma", "actor", "actress", "waiter",
           "waitress", "bride", "groom", "wive", "feminist", "lesbian", "gay")
_PLACES = ("america", "american", "african", "africa", "afro", "asia", "asian", "europe", "european", "mexico",
           "mexican", "china", "chinese", "japan", "japanese", "korea", "korean", "india", "indian", "native",
           "arab", "arabic", "middle", "eastern", "western", "latin", "latino", "latina", "latinx", "hispanic",
           "canada", "canadian", "russia", "russian", "germany", "german", "england", "english", "britain",
           "british", "france", "french", "italy", "italian", "ireland", "irish", "poland", "polish", "saudi",
           "iraq", "iraqi", "iran", "iranian", "syria", "syrian", "immigrant", "immigrants", "foreigner",
           "foreign", "citizen", "alien", "illegal", "undocumented", "refugee", "gypsy", "eskimo", "jew",
           "jewish")
_RACE = ("black", "white", "brown", "colored", "coloured", "caucasian", "negro", "ethnic", "minority", "race",
         "racial", "skin", *_PLACES)
_RELIGION = ("christian", "christianity", "muslim", "islam", "islamic", "jew", "jewish", "judaism", "hindu",
             "buddhist", "catholic", "protestant", "baptist", "mormon", "amish", "atheist", "agnostic", "wiccan",
             "pagan", "lutheran", "episcopalian", "pentecostal", "pentacostal", "evangelical", "sikh", "church",
             "mosque", "synagogue", "temple", "shrine", "bible", "quran", "koran", "torah", "jesus", "allah",
             "god", "religious", "secular", "priest", "rabbi", "imam", "pastor", "nun", "christmas", "ramadan",
             "hijab", "turban")
# CrowS-Pairs' type is "socioeconomic status / occupation": a swap of occupations names the group
_OCCUPATIONS = ("engineer", "professor", "teacher", "nurse", "cop", "police", "officer", "accountant", "farmer",
                "fisherman", "clown", "plumber", "electrician", "mechanic", "carpenter", "landscaper", "gardener",
                "model", "secretary", "receptionist", "manager", "boss", "employee", "clerk", "scientist",
                "surgeon", "dentist", "pilot", "chef", "cook", "driver", "trucker", "babysitter", "nanny",
                "waiter", "waitress", "bartender", "artist", "musician", "athlete", "student", "beggar", "begger",
                "prostitute", "stripper", "dealer", "criminal", "thug", "gangster", "bootlegger", "miner",
                "soldier", "firefighter", "programmer", "architect", "banker", "investor", "landlord", "tenant",
                "homeowner", "owner", "peasant", "slave", "unemployed", "employed", "job", "jobs")
_SES = ("poor", "rich", "wealthy", "wealth", "poverty", "homeless", "broke", "millionaire", "billionaire",
        "income", "class", "upper", "lower", "working", "welfare", "ghetto", "trailer", "projects", "slum",
        "uneducated", "educated", "affluent", "privileged", "elite", "posh", "mansion", "doctor", "lawyer",
        "janitor", "cashier", "laborer", "labourer", "worker", "businessman", "ceo", "executive", "banker",
        "maid", "servant", "cleaner", "construction", "manual", "minimum", "wage", "debt", "money", "cheap",
        "expensive", "luxury", "meager", "stricken", "gated", "mcdonald", "dropout", "college", "degree",
        *_OCCUPATIONS)
_AGE = ("young", "old", "elderly", "aged", "age", "teen", "teens", "teenager", "teenage", "adult", "child",
        "children", "kid", "kids", "baby", "babies", "toddler", "senior", "millennial", "millenial", "boomer",
        "youth", "youngster", "middle", "minor", "grandpa", "grandma", "grandparent", "grandfather",
        "grandmother", "granddaughter", "grandson", "retired", "retiree", "boy", "girl", "infant", "juvenile",
        "geriatric", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "thirties",
        "twenties", "forties", "fifties", "sixties", "seventies", "eighties", "nineties", "year", "years")
_SEXUAL = ("gay", "lesbian", "straight", "heterosexual", "homosexual", "bisexual", "queer", "lgbt", "lgbtq",
           "hetero", "etero", "homo", "asexual", "pansexual", "pride", "partner", *_GENDER)
_APPEARANCE = ("fat", "thin", "skinny", "overweight", "obese", "tall", "short", "small", "large", "big", "slim",
               "fit", "ugly", "beautiful", "pretty", "attractive", "unattractive", "handsome", "muscular",
               "heavy", "tiny", "blonde", "blond", "brunette", "redhead", "bald", "disfigured", "scar", "scarred",
               "pierced", "piercing", "tattoo", "tattooed", "hairy", "petite", "chubby", "plump", "underweight",
               "sturdy", "buff", "trim", "weight", "fatties", "fattie", "gorgeous", "hunchback", "morbidly",
               "wrinkled", "acne", "glasses", "hair", "height")
_DISABILITY = ("disabled", "disability", "handicapped", "wheelchair", "blind", "deaf", "mute", "autistic",
               "autism", "retarded", "retard", "crippled", "cripple", "ill", "illness", "mentally", "mental",
               "sick", "sickly", "healthy", "able", "abled", "bodied", "nondisabled", "dyslexic", "dyslexia",
               "syndrome", "down", "paralyzed", "paralysed", "amputee", "schizophrenic", "bipolar", "psychotic",
               "depressed", "depression", "adhd", "impaired", "normal", "disorder", "agoraphobia", "limb",
               "limbs", "legs", "crutches", "cane", "deformed", "insane", "crazy", "special", "needs",
               "without", "paraplegic", "demented", "challenged")

#: Each bias type's group words (lower-case; a word also matches with a plural or comparative
#: ending, see :mod:`biasatlas.lint`). ``nationality`` shares the place and people words of
#: ``race-color``: CrowS-Pairs' writers used one for the other (Asian, Mexican under both).
GROUP_WORDS: dict[str, tuple[str, ...]] = {
    "race-color": _RACE, "gender": _GENDER, "socioeconomic": _SES, "nationality": _PLACES,
    "religion": _RELIGION, "age": _AGE, "sexual-orientation": _SEXUAL, "physical-appearance": _APPEARANCE,
    "disability": _DISABILITY,
}
_NAMES = "[A-Z]"  # a capitalised word: a name or a proper noun
#: What else in an edit names each type's group (:attr:`biasatlas.lint.LintItem.group_pattern`):
#: names and proper nouns for the types they carry, a number for age ("18" for "80") and for
#: appearance (dress size 24 for 2).
GROUP_PATTERNS: dict[str, str] = {"race-color": _NAMES, "gender": _NAMES, "nationality": _NAMES,
                                  "religion": _NAMES, "sexual-orientation": _NAMES, "age": r"\d",
                                  "physical-appearance": r"\d"}
