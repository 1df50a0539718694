package corpus

// A script is a set of sample sentences in one language, with the octets
// that separate its sentences in running text.
type script struct {
	name      string
	sep       string
	sentences []string
}

// The sample sentences were written for these benchmarks; they are meant to
// have the octet statistics of real prose in each script, not to be read.
var (
	english = script{"english", " ", []string{
		"The request was rejected because the path contained an overlong encoding of a slash.",
		"Most of the traffic that reaches a web server is plain ASCII, so the fast path matters.",
		"She opened the window, looked at the rain for a while, and went back to her desk.",
		"A validator that is slower than the standard library will simply not be deployed.",
		"In 2003, RFC 3629 restricted UTF-8 to four octets and to code points below U+10FFFF.",
		"He paid $12.50 for two coffees (one with milk) and a slice of lemon cake.",
		"Every query parameter is decoded once, checked once, and then handed to the handler.",
		"The logs showed 404 errors for /static/app.js?v=17 between 09:14 and 09:31.",
		"Keep the hot loop small; the branch predictor and the caches will do the rest.",
		"Nobody expected the migration to take three weeks, but the old schema fought back.",
	}}
	french = script{"french", " ", []string{
		"Le café était déjà froid quand elle est revenue de la réunion.",
		"Où est passée la clé du garage ? Je l'ai cherchée partout, même derrière le réfrigérateur.",
		"Les élèves ont préparé une pièce de théâtre pour la fête de fin d'année.",
		"Il faut être patient : la procédure de vérification dure généralement une journée.",
		"À côté de l'hôpital, on a ouvert une boulangerie où l'on vend des crêpes et des gâteaux.",
		"Noël approche et les vitrines du boulevard brillent déjà de mille lumières.",
	}}
	german = script{"german", " ", []string{
		"Die Straßenbahn fährt heute wegen Bauarbeiten nur bis zum Hauptbahnhof.",
		"Könnten Sie mir bitte sagen, wo ich die nächste Apotheke finde?",
		"Über das Wochenende müssen wir die Größe der Datenbank überprüfen.",
		"Im Frühling blühen die Obstbäume am Ufer des Sees besonders schön.",
		"Der Schlüssel liegt in der Schublade neben dem Kühlschrank.",
	}}
	spanish = script{"spanish", " ", []string{
		"¿Cuántos años tenía tu abuela cuando llegó a la ciudad?",
		"El niño pidió una canción más antes de dormirse, y su padre aceptó.",
		"La reunión se canceló porque el señor Núñez está enfermo.",
		"¡Qué día tan bonito para pasear por el parque con los amigos!",
	}}
	portuguese = script{"portuguese", " ", []string{
		"A população da região aumentou bastante nos últimos anos.",
		"Não sei se ele já voltou da viagem ao Japão, mas vou perguntar à irmã.",
		"As informações estão disponíveis na página da instituição.",
	}}
	polish = script{"polish", " ", []string{
		"Zażółć gęślą jaźń, czyli zdanie, które zawiera wszystkie polskie litery.",
		"Wczoraj wieczorem poszliśmy na spacer nad rzekę, bo było ciepło.",
		"Ta książka leży na półce obok okna od dwóch tygodni.",
	}}
	czech = script{"czech", " ", []string{
		"Příliš žluťoučký kůň úpěl ďábelské ódy, říká se v Česku.",
		"Zítra ráno pojedeme vlakem do Brna a večer se vrátíme.",
	}}
	vietnamese = script{"vietnamese", " ", []string{
		"Tôi đã sống ở Hà Nội được hơn mười năm và vẫn thích món phở buổi sáng.",
		"Chúng ta cần kiểm tra lại dữ liệu trước khi gửi báo cáo cho khách hàng.",
		"Mùa thu ở đây trời mát, lá vàng rơi đầy trên những con đường nhỏ.",
	}}

	russian = script{"russian", " ", []string{
		"Вчера вечером мы долго гуляли по набережной и разговаривали о будущем.",
		"Пожалуйста, проверьте правильность введённых данных и попробуйте снова.",
		"Съешь же ещё этих мягких французских булок, да выпей чаю.",
		"Поезд прибывает на третий путь в восемнадцать часов сорок минут.",
		"Библиотека работает ежедневно, кроме понедельника, с десяти до шести.",
		"Этот сервер отклоняет запросы, в которых встречаются некорректные последовательности.",
	}}
	ukrainian = script{"ukrainian", " ", []string{
		"Наступного тижня ми поїдемо до Львова на фестиваль кави.",
		"Гей, хлопці, вставайте, бо вже світає над полем і річкою.",
		"Їжак пʼє чай із ґудзиком на блюдці, щоб не було нудно.",
	}}
	bulgarian = script{"bulgarian", " ", []string{
		"Утре сутринта ще има среща в кметството за новия парк.",
		"Щом дойдеш, ще ти покажа къщата и градината зад нея.",
	}}
	greek = script{"greek", " ", []string{
		"Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και μία από τις αρχαιότερες πόλεις.",
		"Ξεσκεπάζω την ψυχοφθόρα βδελυγμία, λέει μια γνωστή φράση.",
		"Το πρωί πήγαμε στη θάλασσα και το απόγευμα επιστρέψαμε στο χωριό.",
		"Παρακαλώ, μπορείτε να μου πείτε πού είναι ο σταθμός του μετρό;",
	}}

	chinese = script{"chinese", "", []string{
		"我们明天早上八点在火车站门口见面，然后一起去博物馆。",
		"这个服务器会拒绝包含非法编码序列的请求，并记录一条日志。",
		"春天来了，公园里的花都开了，很多人带着孩子出来散步。",
		"他一边喝茶一边看报纸，完全没有注意到外面已经下雨了。",
		"請在提交表單之前仔細檢查所有欄位，以免資料錯誤。",
		"學習一門新的語言需要時間和耐心，但是非常有意思。",
	}}
	japanese = script{"japanese", "", []string{
		"昨日は雨が降っていたので、一日中家で本を読んでいました。",
		"このサーバーは不正なエンコーディングを含むリクエストを拒否します。",
		"東京駅から新幹線に乗って、京都まで二時間ほどかかります。",
		"すみません、この近くにコンビニはありますか？",
		"週末は友達とカラオケに行って、たくさん歌いました。",
	}}
	korean = script{"korean", " ", []string{
		"오늘 아침에 친구와 함께 공원에서 산책을 했습니다.",
		"이 서버는 잘못된 인코딩이 포함된 요청을 거부합니다.",
		"다음 주에 부산으로 여행을 갈 계획이에요.",
		"한국어를 배우는 것은 어렵지만 정말 재미있습니다.",
	}}

	emoji = script{"emoji", " ", []string{
		"🎉🥳🎂",
		"👍🏽👍🏽",
		"❤️🔥",
		"👨‍👩‍👧‍👦",
		"🏳️‍🌈🏳️‍⚧️",
		"😂😂😂🤣",
		"🇫🇷🇩🇪🇯🇵🇺🇦",
		"🙏🏻✨",
		"👩🏾‍💻☕️🚀",
		"🐶🐱🐭🐹🐰🦊",
		"🍕🍔🍟🌮",
		"😍🥰😘",
		"🧑‍🤝‍🧑",
		"⚽️🏀🏈⚾️",
		"🌧️☀️🌈",
		"😭💔",
		"🤔💭",
		"👀👀",
		"🎶🎸🥁🎹",
		"🏃‍♀️💨",
	}}
)
