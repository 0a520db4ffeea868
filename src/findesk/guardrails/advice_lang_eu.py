"""Spanish, German, French, Italian and Portuguese advice-request patterns (folded: no accents).

Rules this module keeps (see ``advice_lang`` for the matching contract):
- Same forms as English: a modal addressed to the asker or their client ("¿Debería…?", "Soll ich…",
  "Dois-je…", "Dovrei…", "Devo…") followed by a trade; "is it a good time / wise / worth it"; "would
  you buy / pay"; "your price target"; "how much of my portfolio"; "a good buy / entry point".
- German puts the verb last ("Soll ich Apple kaufen?"), so its modals allow more words before it.
- Words that are also corporate actions or accounting terms need a position to be trades: "reducir la
  posición", not "reducir costos"; "valor razonable" (fair value) is a weak topic, research when the
  sentence cites a filing or an analyst.
- Possessives that mean both "your" and "its/their" (es "su", pt "seu", de "Ihr") are weak.
"""

from __future__ import annotations

from findesk.guardrails.advice_lang import LangPatterns

# ---- Spanish ----
_ES_ACT = (
    r"(?:compr(?:ar|arla|arlas|arlo|arlos|o|e|emos|amos|en|ando)|vend(?:er|erla|erlas|erlo|erlos|o|a|amos"
    r"|an|iendo)|manten(?:er|erla|erlas|erlo|erlos|go|emos)|conservar(?:la|las|lo|los)?|aguantar|invertir"
    r"|invierto|salir(?:me|nos)?|entrar|recortar(?:la)?|anadir|acumular|deshacer(?:me|nos)|tomar (?:\w+ )?"
    r"(?:ganancias|beneficios)|recoger beneficios|realizar (?:ganancias|beneficios)|doblar (?:la )?apuesta"
    r"|promediar|cargar(?:me)?|apostar|liquidar|ponerme (?:largo|corto)|shortear|quedarme"
    r"|(?:reducir|aumentar|ampliar)(?:la)?(?: (?:la|mi|su|nuestra|esta|esa))? (?:posicion|exposicion"
    r"|participacion|peso))"
)
_ES_MODAL = (
    r"(?:deberia|deberiamos|deberian|deberias|debo|debemos|tengo que|tenemos que|(?:me |nos |le |les )?"
    r"conviene|vale la pena|merece la pena|(?:es|seria|sera|no es|ya es) (?:\w+ ){0,2}?(?:momento|idea"
    r"|hora|sensato|prudente|inteligente|recomendable|aconsejable|conveniente|oportuno|tarde|opcion)"
    r"|recomiendas|recomienda|recomendarias|recomendaria|aconsejas|aconseja|aconsejarias|sugieres)"
)
_ES_POT = r"(?:cartera|portafolio|portfolio|patrimonio|ahorros|dinero|jubilacion|capital|inversiones)"
ES = LangPatterns(
    strong=(
        rf"\b{_ES_MODAL}\b(?: \w+){{0,4}}? {_ES_ACT}\b",
        r"\b(?:buena|mala|gran|mejor) (?:compra|inversion|apuesta|oportunidad de compra)\b",
        r"\b(?:buen|mal|mejor) (?:punto|momento|nivel|precio) (?:de entrada|de compra|para (?:comprar"
        r"|entrar|vender|salir|invertir))\b",
        r"\b(?:comprarias|venderias|mantendrias|invertirias|pagarias|(?:usted )?(?:compraria|venderia"
        r"|pagaria) usted|usted (?:compraria|venderia|pagaria))\b",
        r"\btu (?:\w+ ){0,2}?(?:precio objetivo|objetivo de precio|valoracion|recomendacion|prevision"
        r"|pronostico)\b",
        rf"\b(?:porcentaje|parte|cuanto|cuanta|proporcion|peso|fraccion)\b(?: \w+){{0,2}}? (?:de|del|en)"
        rf" (?:mi|mis|nuestra|nuestro|nuestros) (?:\w+ )?{_ES_POT}\b",
        rf"\b(?:porcentaje|parte|cuanto|proporcion)\b(?: \w+){{0,3}}? {_ES_POT} de mis? client\w*",
        r"\bcuant(?:o|a|os|as)\b(?: \w+){0,3}? (?:deberia|debo|debemos|deberiamos|tengo que|conviene)"
        r"(?: \w+){0,2}? (?:invertir|poner|comprar|asignar|destinar|meter|vender)\b",
    ),
    weak=(
        r"\b(?:comprar|compro|vender|vendo|mantener) o (?:vender|vendo|mantener|mantengo|esperar|comprar"
        r"|compro)\b",
        r"\b(?:precios? objetivos?|objetivos? de precio|valor justo|valor razonable|precio justo|su precio"
        r" objetivo)\b",
        r"\b(?:la accion|las acciones|el precio|la cotizacion)(?: \w+){0,2} (?:subira|subiran|bajara"
        r"|bajaran|caera|caeran|rebotara|se disparara|llegara)\b",
        r"^(?:subira|subiran|bajara|bajaran|caera|caeran)\b|\bdonde estara (?:la accion|el precio|\w+)\b",
        r"\bes(?:ta)? (?:\w+ ){0,2}?(?:cara|barata|caro|barato|sobrevalorad[ao]|infravalorad[ao]"
        r"|subvalorad[ao])\b",
    ),
    research=(
        r"\b(?:analistas?|informo|informaron|informe|reporto|reportaron|dijo|dijeron|dice|dicen|anuncio"
        r"|anunciaron|segun|noticias?|prensa|recorto|recortaron|rebajo|rebajaron|elevo|elevaron|publico"
        r"|publicaron|consenso|insiders?|fondos?|presento|significa|significado)\b",
    ),
)

# ---- German ----
_DE_ACT = (
    r"(?:\w*kaufen|kauf|halten|behalten|shorten|\w*investieren|(?:ein|aus|um)steigen|\w*zusteigen"
    r"|(?:auf|nach|zu)stocken|\w*zustocken|abstossen|\w*zustossen|gewinne mitnehmen|mitnehmen"
    r"|glattstellen|raus|rein|(?:position|anteil|gewichtung) (?:reduzieren|abbauen|verkleinern|erhohen)"
    r"|reduzieren|abbauen|trimmen|liquidieren|aussitzen|verdoppeln|nachlegen)"
)
_DE_WHO = (
    r"(?:ich|wir|mein (?:\w+ )?kunde|meine (?:\w+ )?kundin|meine (?:\w+ )?kunden|unsere (?:\w+ )?kunden"
    r"|man|er|sie|du)"
)
_DE_POT = r"(?:portfolios?|depots?|vermogens?|ersparnisse\w*|geld\w*|kapitals?|altersvorsorge|anlagen?)"
DE = LangPatterns(
    strong=(
        rf"\b(?:soll|sollte|sollten|sollen|solltest|muss|musste|mussen) {_DE_WHO}\b(?: \w+){{0,6}}?"
        rf" {_DE_ACT}\b",
        rf"\b(?:ich|wir|kunde|kundin|kunden|man) (?:soll|sollte|sollten|muss|musste)\b(?: \w+){{0,6}}?"
        rf" {_DE_ACT}\b",
        rf"\bob {_DE_WHO}\b(?: \w+){{0,5}}? {_DE_ACT} (?:soll|sollte|sollten|solle|muss|musste)\b",
        rf"\b(?:ist|ware|wird|war) es (?:\w+ ){{0,3}}?(?:klug|sinnvoll|ratsam|weise|clever|gut|besser"
        rf"|vernunftig|spat|fruh|zeit|idee|riskant)\b(?: \w+){{0,5}}? {_DE_ACT}\b",
        rf"\b(?:gute|guter|richtige|richtiger|beste|bester|idealer|gunstiger|passender) (?:zeitpunkt|moment)"
        rf"\b(?: \w+){{0,4}}? (?:{_DE_ACT}|zum (?:kauf|verkauf|einstieg|ausstieg))\b",
        r"\b(?:gute|guter|gutes|gunstige|gunstiger|attraktive|attraktiver) (?:einstieg|einstiegspunkt"
        r"|einstiegskurs|einstiegsniveau|einstiegszeitpunkt|kaufgelegenheit|kaufkurs|einstiegschance"
        r"|kaufchance|kaufzeitpunkt)\b",
        r"\bist (?:\w+ ){1,3}(?:ein|eine|noch ein|jetzt ein) (?:kauf|verkauf|schnappchen|kaufkandidat)\b",
        r"\b(?:gute|gutes|guter|lohnende|lohnendes|kluge|kluges|sichere|sicheres) (?:investition|investment"
        r"|kauf|geldanlage|wette)\b",
        rf"\blohnt (?:es )?sich\b(?: \w+){{0,5}}? (?:{_DE_ACT}|ein(?:e)? (?:kauf|einstieg|investment"
        rf"|investition)|der (?:kauf|einstieg))\b",
        rf"\b(?:wurden sie|wurdest du|wurdet ihr)\b(?: \w+){{0,5}}? (?:{_DE_ACT}|zahlen|bezahlen)\b",
        rf"\b(?:empfehlen sie|empfiehlst du|raten sie|ratst du|ratest du)\b(?: \w+){{0,5}}? (?:{_DE_ACT}"
        rf"|aktien?|titel|werte|kauf|verkauf)\b",
        r"\b(?:welche|welchen) (?:aktien?|titel|werte|etfs?)\b(?: \w+){0,3}? (?:empfehlen sie|empfiehlst du"
        r"|soll ich|sollte ich|sollten wir)\b",
        r"\bdein(?:e|en)? (?:\w+ ){0,2}?(?:kursziel|preisziel|fairer wert|einschatzung|prognose"
        r"|empfehlung)\b",
        rf"\b(?:wie ?viel|welchen anteil|welcher anteil|anteil|prozent|teil)\b(?: \w+){{0,3}}? (?:meines"
        rf"|meinem|meiner|meinen|mein|meine|unseres|unserem|unserer|unser) (?:\w+ )?{_DE_POT}\b",
        rf"\b{_DE_POT} (?:meines|meiner|meinen) kund\w*",
        r"\bwie ?viel(?: \w+){0,3}? (?:soll|sollte|sollten) (?:ich|wir|mein kunde|meine kundin)\b"
        r"(?: \w+){0,4}? (?:investieren|anlegen|kaufen|stecken|setzen|einsetzen|allokieren)\b",
    ),
    weak=(
        r"\bkaufen oder (?:verkaufen|halten|warten)\b|\bhalten oder verkaufen\b",
        r"\bkursziele?n?\b|\bkursprognose\b|\bpreisziel\b|\bfaire[nr]? wert\b|\bihr kursziel\b",
        r"\b(?:wird|werden) (?:die aktie|die aktien|der kurs|der aktienkurs|das papier|sie|es|\w+ aktie)"
        r"\b(?: \w+){0,3}? (?:steigen|fallen|sinken|zulegen|einbrechen|absturzen)\b",
        r"\b(?:wo|wohin) (?:steht|wird|geht) (?:die aktie|der kurs)\b",
        r"\bist (?:die aktie|sie|\w+ aktie|\w+) (?:\w+ )?(?:uberbewertet|unterbewertet|zu teuer|billig)\b",
        r"\blohnt (?:es )?sich (?:\w+ ){0,2}?(?:noch|jetzt|gerade|aktuell|heute)\b",
    ),
    research=(
        r"\b(?:analysten?|laut|bericht\w*|meldete\w*|meldung\w*|sagte\w*|gesagt|nachrichten|presse"
        r"|senkte\w*|gesenkt|hob|hoben|angehoben|erhohte\w*|konsens|insider|fonds|veroffentlicht\w*"
        r"|bedeutet|bedeutung)\b",
    ),
)

# ---- French ----
_FR_ACT = (
    r"(?:acheter|achete|vendre|vends|vend|garder|conserver|investir|sortir|rentrer|entrer|renforcer"
    r"|alleger|prendre (?:\w+ )?(?:benefices|profits)|encaisser|doubler (?:la mise)?|accumuler|solder"
    r"|liquider|shorter|parier|miser|(?:me |se )?charger|rester (?:investi|dedans|en position)"
    r"|m y mettre|y aller"
    r"|(?:me|se) positionner|couper (?:mes |ses )?pertes|moyenner|(?:augmenter|reduire) (?:\w+ )?"
    r"(?:position|exposition|ligne))"
)
_FR_MODAL = (
    r"(?:dois je|devrais je|devrait on|doit on|devons nous|devrions nous|faut il|faudrait il|je dois"
    r"|je devrais|nous devons|nous devrions|on doit|on devrait|mon (?:\w+ )?client (?:doit il|devrait il"
    r"|doit|devrait)|ma (?:\w+ )?cliente (?:doit elle|devrait elle|doit|devrait)|mes (?:\w+ )?clients"
    r" (?:doivent ils|devraient ils|doivent|devraient)|vaut il (?:la peine|le coup)|ca vaut (?:la peine"
    r"|le coup)|(?:est ce|est il|serait il|serait ce|ce serait|c est|il est)(?: que)?(?: c est)?"
    r" (?:\w+ ){0,2}?(?:moment|judicieux|sage|prudent|raisonnable|malin|intelligent|idee|opportun|tard"
    r"|temps)|(?:me )?conseillez vous|recommandez vous|(?:me )?conseilles tu|tu conseilles"
    r"|tu recommandes|vous conseillez|vous recommandez)"
)
_FR_POT = r"(?:portefeuille|epargne|patrimoine|capital|argent|economies|retraite|pea)"
FR = LangPatterns(
    strong=(
        rf"\b{_FR_MODAL}\b(?: \w+){{0,5}}? {_FR_ACT}\b",
        rf"\b(?:s il|si elle|si je|si nous|si on|s ils|si elles|si mon client|si ma cliente) (?:doit|devrait"
        rf"|devrais|dois|devons|devrions|doivent|devraient)\b(?: \w+){{0,3}}? {_FR_ACT}\b",
        r"\b(?:bon|meilleur|excellent|mauvais) (?:achat|investissement|placement|point d entree|niveau"
        r" d entree|prix d entree|pari|moment pour (?:acheter|vendre|entrer|sortir|investir|renforcer"
        r"|alleger))\b",
        r"\b(?:bonne|belle|excellente) (?:opportunite|occasion) d achat\b",
        r"\b(?:acheteriez vous|vendriez vous|garderiez vous|investiriez vous|paieriez vous|payeriez vous"
        r"|acheterais tu|vendrais tu|garderais tu|paierais tu|vous acheteriez|tu acheterais)\b",
        r"\b(?:que|qu est ce que vous) feriez vous\b|\ba ma place\b",
        r"\b(?:votre|ton|vos|tes) (?:\w+ ){0,2}?(?:objectifs? de cours|cours cible|prix cible|juste valeur"
        r"|valorisation|recommandation|prevision)\b",
        rf"\b(?:quelle part|quel pourcentage|combien|quelle proportion|quelle portion|quelle partie"
        rf"|quelle fraction|quel poids)\b(?: \w+){{0,3}}? (?:de |du |dans |d )?(?:mon|ma|mes|notre|nos)"
        rf" (?:\w+ )?{_FR_POT}\b",
        rf"\b{_FR_POT} de (?:mon|ma|mes) client\w*",
        r"\bcombien\b(?: \w+){0,3}? (?:dois je|devrais je|devrions nous|faut il)(?: \w+){0,2}? (?:investir"
        r"|mettre|acheter|placer|allouer)\b",
    ),
    weak=(
        r"\b(?:acheter|achete) ou (?:vendre|vends|garder|conserver|attendre)\b|\bgarder ou vendre\b",
        r"\b(?:objectifs? de cours|cours cibles?|prix cibles?|juste valeur|valeur intrinseque)\b",
        r"\b(?:va|vont)(?: t)?(?: elle| il| elles| ils)? (?:monter|baisser|chuter|grimper|remonter"
        r"|rebondir|s effondrer|exploser|decoller)\b",
        r"\bou (?:en )?sera (?:l action|le cours|le titre)\b",
        r"\best (?:elle|il|ce|l action|le titre) (?:\w+ )?(?:surevalue\w*|sous evalue\w*|cher\w*"
        r"|bon marche)\b",
    ),
    research=(
        r"\b(?:analystes?|selon|rapporte\w*|annonce\w*|a dit|ont dit|disent|dit|presse|nouvelles"
        r"|abaisse\w*|releve\w*|consensus|fonds|publie\w*|depose\w*|signifie|veut dire)\b",
    ),
)

# ---- Italian ----
_IT_ACT = (
    r"(?:compr(?:are|arla|arle|arlo|arli|o|iamo)|vend(?:ere|erla|erle|erlo|erli|o|iamo)|tenere|tenerla"
    r"|tenerle|mantenere|investire|uscire|entrare|alleggerire|accumulare|incassare|prendere (?:\w+ )?"
    r"(?:profitt\w*|guadagn\w*|benefic\w*)|raddoppiare|shortare|mediare|caricare|(?:aumentare|ridurre)"
    r" (?:\w+ )?(?:posizione|esposizione))"
)
_IT_MODAL = (
    r"(?:dovrei|devo|dovremmo|dobbiamo|il mio (?:\w+ )?cliente (?:deve|dovrebbe)|la mia (?:\w+ )?cliente"
    r" (?:deve|dovrebbe)|i miei (?:\w+ )?clienti (?:devono|dovrebbero)|(?:mi |ci |gli |le )?conviene"
    r"|vale la pena|e (?:\w+ ){0,2}?(?:momento|ora|tempo|saggio|prudente|intelligente|idea|tardi)"
    r"|sarebbe (?:\w+ ){0,2}?(?:saggio|prudente|intelligente|idea|sensato|momento)|mi consigli"
    r"|consigli di|consiglia di|consiglieresti|mi consiglia)"
)
IT = LangPatterns(
    strong=(
        rf"\b{_IT_MODAL}\b(?: \w+){{0,4}}? {_IT_ACT}\b",
        r"\b(?:buon|ottimo|cattivo) (?:acquisto|investimento|punto di (?:ingresso|entrata)|momento per"
        r" (?:comprare|vendere|entrare|uscire|investire))\b",
        r"\b(?:buona|ottima) (?:occasione|opportunita) (?:di|d) acquisto\b",
        r"\b(?:compreresti|venderesti|terresti|compreste|vendereste|pagheresti|paghereste)\b",
        r"\b(?:tuo|vostro) (?:\w+ ){0,2}?(?:prezzo obiettivo|target price|target|valore equo"
        r"|raccomandazione)\b",
        r"\b(?:quanto|quanta|che percentuale|quale percentuale|che parte|quale parte|quale quota|che quota)"
        r"\b(?: \w+){0,3}? (?:del |della |nel |nella |di |dei )?(?:mio|mia|miei|mie|nostro|nostra)"
        r" (?:\w+ )?(?:portafoglio|patrimonio|risparmi|capitale|soldi|denaro|pensione)\b",
    ),
    weak=(
        r"\bcomprare o vendere\b|\btenere o vendere\b",
        r"\b(?:prezz[oi] obiettivo|target price|valore equo|valore intrinseco)\b",
        r"\b(?:il titolo|le azioni|l azione|il prezzo|la quotazione)(?: \w+){0,2} (?:salira|scendera"
        r"|crollera|rimbalzera|saliranno|scenderanno)\b|^(?:salira|scendera|saliranno|scenderanno)\b",
        r"\b(?:il titolo|l azione|\w+) e (?:\w+ )?(?:sopravvalutat\w*|sottovalutat\w*)\b",
    ),
    research=(
        r"\b(?:analisti|analista|secondo|notizie|stampa|riportato|annunciato|detto|tagliato|tagliano"
        r"|alzato|abbassato|consenso|fondi|pubblicato|significa|significato)\b",
    ),
)

# ---- Portuguese ----
_PT_ACT = (
    r"(?:compr(?:ar|a la|a lo|o|amos|e)|vend(?:er|e la|e lo|o|emos|a)|manter|segurar|investir|sair|entrar"
    r"|realizar (?:o |os )?lucros?|embolsar|zerar|dobrar a aposta|acumular|aportar|(?:aumentar|reduzir"
    r"|montar|zerar) (?:\w+ )?posicao|shortear)"
)
_PT_MODAL = (
    r"(?:devo|deveria|devemos|deveriamos|meu (?:\w+ )?cliente (?:deve|deveria)|minha (?:\w+ )?cliente"
    r" (?:deve|deveria)|meus (?:\w+ )?clientes (?:devem|deveriam)|vale a pena|compensa|e (?:\w+ ){0,2}?"
    r"(?:hora|momento|ideia|sensato|prudente|inteligente|tarde)|seria (?:\w+ ){0,2}?(?:sensato|prudente"
    r"|inteligente|ideia|sabio|momento)|voce (?:recomenda|aconselha|sugere))"
)
PT = LangPatterns(
    strong=(
        rf"\b{_PT_MODAL}\b(?: \w+){{0,4}}? {_PT_ACT}\b",
        r"\b(?:boa|otima|ma) (?:compra|oportunidade de compra|aposta)\b",
        r"\b(?:bom|otimo|mau) (?:investimento|ponto de entrada|momento para (?:comprar|vender|entrar|sair"
        r"|investir))\b",
        r"\bvoce (?:compraria|venderia|pagaria|manteria)\b|\bquanto (?:voce )?pagaria\b",
        r"\bteu (?:\w+ ){0,2}?(?:preco alvo|alvo de preco)\b",
        r"\b(?:quanto|qual percentual|qual porcentagem|que parte|qual parte|que percentual|que porcentagem"
        r"|qual fatia)\b(?: \w+){0,3}? (?:da |do |na |no |de |dos |das )?(?:minha|meu|nossa|nosso|meus"
        r"|minhas) (?:\w+ )?(?:carteira|portfolio|patrimonio|dinheiro|poupanca|aposentadoria|capital"
        r"|reserva)\b",
    ),
    weak=(
        r"\bcomprar ou vender\b|\bmanter ou vender\b",
        r"\b(?:precos? alvos?|alvos? de preco|valor justo|preco justo)\b",
        r"\b(?:a acao|as acoes|o preco|a cotacao|ela)(?: \w+){0,2} (?:vai|vao) (?:subir|cair|disparar"
        r"|despencar)\b",
    ),
    research=(
        r"\b(?:analistas?|segundo|noticias?|imprensa|reportou|anunciou|disse|disseram|cortaram|cortou"
        r"|elevaram|rebaixaram|consenso|fundos|publicou|significa|significado)\b",
    ),
)
