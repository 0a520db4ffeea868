"""English advice-request patterns: direct ("should I buy"), indirect ("would it be wise to load up",
"is this a good entry point", "what price would you pay") and client-framed ("should my client trim").

Rules this module keeps (see ``advice_lang`` for the matching contract):
- An action word alone is never advice: it needs a decision form around it (a modal addressed to
  the asker or their client, "is it time / wise to", "would you", "worth buying").
- Corporate actions are not trades: "buy back", "sell-off", "buy-side", "hold on", "get in touch".
- "They", "investors" and "clients" asking "should … sell" are advice; a company as the subject
  ("should Apple cut costs") is not, since the action words need a position, not a business.
"""

from __future__ import annotations

from findesk.guardrails.advice_lang import LangPatterns

# Who the decision is for: the asker, their client or family, investors in general.
_WHO = (
    r"(?:i|we|my (?:\w+ )?(?:clients?|customers?|wife|husband|partner|family|mom|dad|mother|father"
    r"|parents|son|daughter|friend)|our (?:\w+ )?(?:clients?|customers?)|the client|a client|clients"
    r"|he|she|they|one|investors|people)"
)
_ME = r"(?:i|we|my (?:\w+ )?clients?|our (?:\w+ )?clients?)"
_ACT = (
    r"(?:buy|buying|sell|selling|hold|holding|short|shorting|keep|dump|trim|trimming|add to|add more|add"
    r"|exit|invest|investing|purchase|unload|accumulate|own|load up|double down|take profits?|get out"
    r"|get in|go long|go short|cash out|average down|bail|bullish|bearish|rotate|reduce|stay in"
    r"|stay invested|hedge|enter|scale in|scale out|pull out|go all in|pile in|jump in|sell out"
    r"|lighten up|increase (?:my|our|the|her|his|their) (?:position|stake|exposure)"
    r"|cut (?:my |our |her |his |their )?losses|lock in (?:gains|profits)|move into|bet on|hodl|avoid)"
)
_NOT_A_TRADE = r"(?! back| side| off| touch| on to| the line)"
_POT = r"(?:portfolio|savings|money|retirement|401 ?k|ira|roth|net worth|capital|cash|nest egg|assets)"
_OWNER = r"(?:my|our|his|her|my (?:\w+ )?clients?|the clients?|a clients?)"

STRONG = (
    rf"\b(?:should|shall|must|ought to) {_WHO}\b(?: \w+){{0,3}}? (?:be |still |just |now )?{_ACT}\b"
    + _NOT_A_TRADE,
    rf"\b{_WHO} (?:should|ought to|must)(?: \w+){{0,2}}? (?:be )?{_ACT}\b{_NOT_A_TRADE}",
    r"\b(?:would|will|do|did) you(?: (?:personally|still|actually|really|now|even|rather|consider|be))*"
    r" (?:buy|buying|sell|selling|short|hold|holding|own|invest in|pay|add to|add more|trim|exit|get in"
    r"|load up|take profits|bet on|stay in)\b(?! back| on| off| side)",
    r"\b(?:can|could) you (?:buy|sell|short|invest in)\b(?! back| off| side)",
    r"\bis (?!there )(?:\w+ ){1,3}an? (?:\w+ )?(?:buy|sell|hold|short|investment|bargain|steal)\b"
    r"(?! back| side| off| squeeze| interest| report| seller| term| sale| position| list)",
    r"\b(?:good|bad|smart|wise|safe|great|solid|better|decent|sound) (?:investment|buy|bet|pick)\b"
    r"(?! back| side| in\b| of\b)",  # "a better investment in R&D" is a business question
    r"\bworth (?:buying|selling|holding|owning|investing|shorting|adding|getting (?:in|into)|jumping in"
    r"|piling in|a (?:buy|punt|bet|position))\b",
    r"\b(?:stocks?|shares|etfs?|what|which one|which|companies|tickers?) (?:should (?:i|we) |to )"
    r"(?:buy|sell|short|invest in|own|hold|avoid)\b(?! back)",
    r"\b(?:good|great|best|safe|solid|bad|top|cheap) (?:stocks?|shares|etfs?|companies|company|tickers?"
    r"|names?) (?:to|i should|we should) (?:buy|own|hold|invest in|add|short|sell)\b",
    r"\b(?:is it|is now|now|good|right|best|bad|ideal|wrong|perfect)(?: \w+){0,3}? (?:time|moment"
    r"|entry point) to (?:buy|sell|short|get in|get into|get out|exit|invest|enter|take profits?|trim"
    r"|add|load up"
    r"|dump|bail)\b",
    # "would it be wise to load up", "does it make sense to trim", "is it too late to buy"
    rf"\b(?:is|would|will|was|isnt|wouldnt|does) (?:it|this|now|that|today) (?:be |still |really )?"
    rf"(?:\w+ ){{0,3}}?(?:wise|smart|prudent|sensible|good|bad|right|reasonable|safe|risky|crazy|dumb"
    rf"|stupid|better|mistake|idea|time|moment|late|early|opportunity|sense|move) (?:to|if {_WHO})"
    rf" (?:\w+ )?{_ACT}\b{_NOT_A_TRADE}",
    rf"\btoo (?:late|early|soon) to {_ACT}\b{_NOT_A_TRADE}",
    rf"^(?:(?:the |a )?(?:right |good )?time|so|ok|well) to {_ACT}\b{_NOT_A_TRADE}",
    r"^(?:take profits?|double down|load up|cash out|average down|buy the dip|lock in gains)\b",
    rf"(?<!how )(?<!what )(?<!where )(?<!why )(?<!when )(?<!which )(?<!who )\b(?:do|can|could|may)"
    rf" {_ME} (?:still |just |now )?{_ACT}\b{_NOT_A_TRADE}",
    rf"\bwhen (?:to|should {_WHO}) (?:buy|sell|short|get in|get out|exit|take profits?|trim|add)\b",
    r"\b(?:good|great|decent|attractive|ideal|right|nice|solid|best|bad|safe|cheap|reasonable|fair"
    r"|optimal) (?:entry point|exit point|entry price|entry level|exit price|buy point|buy zone"
    r"|price to (?:pay|buy|get in|enter)|level to (?:buy|sell|get in|add|enter|exit))\b",
    r"\bis (?:this|it|now|that|the dip|the (?:pull ?back|drop|sell ?off|decline)|\w+) (?:a |an )?"
    r"(?:\w+ )?(?:buying|selling|entry|exit) (?:opportunity|point|level|signal)\b",
    rf"\bwhat (?:would|should) (?:you|{_WHO}) do\b(?= (?:with|about|here|now|in (?:my|our|her|his))\b|$)",
    r"\bare you (?:bullish|bearish|long|short|buying|selling|a buyer|a seller)\b",
    r"\b(?:do you think|do you expect|you think|you expect|do you see) (?:\w+ ){1,3}?(?:will|would|can"
    r"|could) (?:go up|go down|rise|fall|drop|rally|crash|recover|rebound|climb|sink|double|outperform"
    r"|underperform|hit|reach)\b",
    r"\bwhere do you see (?:\w+ ){1,3}?(?:in|by) (?:\d+|a|one|two|three|five|ten|six|the next|next)"
    r" (?:months?|years?|weeks?|days?|quarters?)\b",
    r"\b(?:do|would|will|can|could) you (?:recommend|advise)\b",
    r"\byour (?:\w+ ){0,2}(?:price target|target price|target|fair value|prediction|forecast|rating"
    r"|recommendations?|picks?|call on|valuation)\b",
    r"\b(?:you|findesk)(?: \w+){0,3}? (?:price target|target price|fair value|rating|forecast|prediction)\b",
    r"\b(?:price target|target price|fair value|rating|forecast)(?: \w+){0,3}? (?:you|findesk)\b",
    r"\b(?:give|set|suggest|estimate|calculate|compute|tell|derive)(?: me| us)? (?:an? |the |your )?(?:\w+ )"
    r"{0,2}(?:price target|target price|fair value|price prediction|price forecast|intrinsic value)\b",
    rf"\bhow (?:much|many)(?: \w+){{0,4}}? (?:should|shall|do|would|can|could|must) {_WHO}(?: \w+){{0,2}}? "
    r"(?:put|allocate|invest|buy|spend|stick|own|hold|keep|dedicate|risk|sell|park|add|trim|move)\b",
    rf"\b(?:percentage|percent|%|portion|share|fraction|part|weight|weighting|allocation|amount|how much"
    rf"|chunk|slice) (?:of|in|for|to) {_OWNER} (?:\w+ )?{_POT}\b",
    rf"\b(?:allocate|allocating|put|putting|invest|investing|move|rebalance|diversify|split|park|structure"
    rf"|weight)(?: \w+){{0,3}}? {_OWNER} (?:\w+ )?{_POT}\b",
    r"\bhow should (?:i|we) (?:allocate|invest|split|weight|size|position)\b|\bposition siz(?:e|ing)\b",
    r"\b(?:investment|financial|trading) (?:advice|tips?|recommendations?)\b|\bstock (?:tips?|picks?)\b",
    # a personal money decision put to us: "should I transfer all my stocks to bonds", "should I take out
    # a loan or find investors", "should I withdraw all my money", "should I follow his advice"
    rf"\b(?:should|shall|must|ought to) {_WHO}(?: \w+){{0,2}}? (?:transfer|move|shift|switch|withdraw"
    rf"|take out"
    r"|borrow|refinance|liquidate|pull|lend|mortgage|pay off|roll over|convert|follow|listen to|trust|copy"
    r"|find investors|raise money|put)\b(?=.*\b(?:stocks?|bonds?|money|savings|loan|investors?|cash|funds?"
    r"|portfolio|401 ?k|ira|roth|pension|mortgage|crypto|bitcoin|shares|advice|tips?|bank|account|assets)\b)",
)
WEAK = (
    r"\b(?:buy|sell|hold|short|long) (?:or|vs|versus) (?:sell|hold|buy|short|long|wait)\b|\bbuy sell\b",
    r"\b(?:recommend|suggest|advise)(?:ed|ing|s)?(?: me| us)?(?: \w+){0,2}? (?:buying|selling|shorting"
    r"|holding|stocks?|shares|etfs?|investments?|positions?|buy|sell|short|what to)\b",
    r"\b(?:price targets?|target prices?|fair value|price prediction|price forecast|price objective|pt)\b",
    r"\b(?:predict|forecast|project)(?: \w+){0,2} (?:stock |share )?prices?\b",
    r"\bwhere will (?:(?:the |its )(?:stock|shares|share price|price)|it|they|(?!(?:the|a|an|its|this|that"
    r"|our|their|your|we|i|you)\b)\w+(?: stock| shares| share price| price)?) (?:be|trade|go|end up|close"
    r"|head|land|stand)\b",
    r"\bhow (?:high|low|far) (?:will|can|could|would|might) (?:\w+ ){1,3}?(?:go|fall|rise|drop|climb|run)\b",
    r"\bwill (?!(?:rates?|inflation|revenue|sales|margins?|earnings|eps|the fed|fed|yields?|costs?|oil|gdp"
    r"|jobs|demand|taxes|debt|the company)\b)(?:\w+ ){1,2}?(?:go up|go down|rise|fall|drop|rally|crash"
    r"|recover|rebound|moon|tank|climb|sink|double|outperform|underperform|beat the market|hit \$?\d"
    r"|reach \$?\d)\b",
    r"\brate (?:\w+ ){1,2}(?:as )?(?:an? )?(?:buy|sell|hold|strong buy|outperform|underperform|overweight"
    r"|underweight)\b|\b(?:buy|sell|hold) rating\b",
    r"\b(?:is|are) (?:it|this|they|the stock|the shares|\w+(?: stock| shares)?) (?:\w+ )?(?:overvalued"
    r"|undervalued|overpriced|underpriced|cheap|expensive|fairly valued|a bargain|a steal)\b",
    r"\b(?:what|how much) (?:is|are) (?:it|this|that|they|the stock|the shares|a share|each share"
    r"|\w+ stock|\w+ shares|[a-z]{1,5}) (?:really |actually |truly )?worth\b",
    r"\bbuy(?:ing)? the dip\b|\bbuying opportunity\b",
    r"\b(?:is|are) (?:it|this|they|the stock|the shares|\w+(?: stock| shares)?) (?:still |really )?"
    r"worth it\b",
    r"\breasons? (?:not )?to (?:buy|sell|hold|own|trim|exit|get in|get out)\b",
)
RESEARCH = (
    r"\b(?:analysts?|reported|reports?|reporting|news|headlines?|articles?|press|said|says|announced"
    r"|consensus|street|brokers?|brokerages?|banks?|insiders?|institutions?|funds?|did|was|were|cut|cuts"
    r"|raised|lowered|lifted|trimmed|upgraded|downgraded|upgrades?|downgrades?|reiterated|according"
    r"|form 4|13f|filings?|filed|posters?|posts|stocktwits|reddit|sentiment|mean|means|meaning"
    r"|definition|define|10 k|10 q|8 k|20 f|proxy|annual report|quarterly report|balance sheet)\b",
    # accounting's fair value is a reported figure, not our valuation of a stock
    r"\bfair value (?:hierarchy|measurements?|option|adjustments?|gains?|losses|of (?:the |its "
    r"|total )?(?:debt"
    r"|assets|liabilities|consideration|derivatives|investments|securities|notes|loans|goodwill|plan assets"
    r"|contingent|warrants|real estate))\b|\bcarrying (?:amounts?|values?)\b|\bconsideration transferred\b"
    r"|\b(?:change|changes|increase|decrease|difference) in (?:the )?fair value\b",
)

EN = LangPatterns(strong=STRONG, weak=WEAK, research=RESEARCH)
