"""Builds bench/data/judge_dev.jsonl: a hand-made labelled dev set for claim/evidence judges.

Each base item has an evidence passage (evidence-like sentences, Japanese or English) and
hand-written claims: `close` (restates one evidence sentence, label supported), `para` (a real
paraphrase, supported), `neg` (negated, contradicted), `add` (adds a detail the evidence does not
state, not_enough_info). Two more variants are derived: `num` (the first number of `close`
changed, contradicted) and `unrelated` (the `close` claim of another item, not_enough_info).
Run: python bench/data/build_judge_dev.py  (deterministic)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# (evidence, close, para, neg, add)
EN = [
    (
        "Mount Fuji is an active stratovolcano on Honshu. It is 3,776 metres high and is the highest mountain in Japan. Its last eruption began in 1707.",
        "Mount Fuji is 3,776 metres high.",
        "No mountain in Japan rises higher than Fuji.",
        "Mount Fuji is not an active stratovolcano.",
        "Mount Fuji is 3,776 metres high and is climbed by 300,000 people every year.",
    ),
    (
        "The Shinkansen began service in 1964. The first line connected Tokyo and Osaka. Trains on the line now reach 285 km/h.",
        "The Shinkansen began service in 1964.",
        "Japan's bullet train first carried passengers in the year of the Tokyo Olympics, 1964.",
        "The Shinkansen did not begin service in 1964.",
        "The Shinkansen began service in 1964 with funding from the World Bank.",
    ),
    (
        "Python was created by Guido van Rossum. Its first release appeared in 1991. Python 3.0 was released in 2008 and was not backward compatible.",
        "Python's first release appeared in 1991.",
        "Guido van Rossum first published his language at the start of the 1990s, in 1991.",
        "Python 3.0 was backward compatible.",
        "Python's first release appeared in 1991 at a conference in Amsterdam.",
    ),
    (
        "The Great Barrier Reef lies off the coast of Queensland. It stretches for over 2,300 kilometres. It is the largest coral reef system in the world.",
        "The Great Barrier Reef stretches for over 2,300 kilometres.",
        "No coral reef system on Earth is bigger than the one off Queensland.",
        "The Great Barrier Reef is not the largest coral reef system in the world.",
        "The Great Barrier Reef stretches for over 2,300 kilometres and hosts 1,500 species of fish.",
    ),
    (
        "The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall. It was the tallest man-made structure until 1930.",
        "The Eiffel Tower was completed in 1889.",
        "Paris got its iron landmark in time for the 1889 World's Fair.",
        "The Eiffel Tower was never the tallest man-made structure.",
        "The Eiffel Tower was completed in 1889 by 300 workers.",
    ),
    (
        "Git was created by Linus Torvalds in 2005. It was written to manage the development of the Linux kernel. Git stores snapshots rather than file differences.",
        "Git was created by Linus Torvalds in 2005.",
        "Linus Torvalds wrote Git so that Linux kernel work had a version control system.",
        "Git does not store snapshots.",
        "Git was created by Linus Torvalds in 2005 in only ten days.",
    ),
    (
        "The Amazon River flows through Brazil, Peru and Colombia. It carries more water than any other river. Its basin covers about 7 million square kilometres.",
        "The Amazon basin covers about 7 million square kilometres.",
        "No river on the planet discharges a greater volume of water than the Amazon.",
        "The Amazon does not flow through Peru.",
        "The Amazon basin covers about 7 million square kilometres and is home to 30 million people.",
    ),
    (
        "The Tokyo Skytree opened in 2012. It is 634 metres tall. It is a broadcasting tower in Sumida, Tokyo.",
        "The Tokyo Skytree is 634 metres tall.",
        "The broadcasting tower in Sumida started operating in 2012.",
        "The Tokyo Skytree is not a broadcasting tower.",
        "The Tokyo Skytree is 634 metres tall and cost 65 billion yen to build.",
    ),
    (
        "HTTP/2 was published as RFC 7540 in 2015. It multiplexes many requests over one connection. It compresses headers with HPACK.",
        "HTTP/2 was published as RFC 7540 in 2015.",
        "With HTTP/2, a single connection carries several requests at the same time.",
        "HTTP/2 does not compress headers.",
        "HTTP/2 was published as RFC 7540 in 2015 after a proposal by Google engineers.",
    ),
    (
        "The Moon orbits the Earth at an average distance of 384,400 km. One orbit takes about 27 days. The Moon always shows the same face to the Earth.",
        "The Moon orbits the Earth at an average distance of 384,400 km.",
        "We always see the same side of the Moon from Earth.",
        "The Moon does not always show the same face to the Earth.",
        "The Moon orbits the Earth at an average distance of 384,400 km and is slowly moving away at 3.8 cm a year.",
    ),
    (
        "Obsidian stores notes as plain Markdown files in a local folder. The folder is called a vault. Plugins extend the application.",
        "Obsidian stores notes as plain Markdown files in a local folder.",
        "Obsidian keeps every note as a Markdown file on your own disk.",
        "Obsidian does not store notes as plain Markdown files.",
        "Obsidian stores notes as plain Markdown files in a local folder encrypted with AES-256.",
    ),
    (
        "The Model Context Protocol was introduced by Anthropic in 2024. It connects AI applications to tools and data sources. Servers expose tools, resources and prompts.",
        "The Model Context Protocol was introduced by Anthropic in 2024.",
        "MCP lets AI applications reach external tools and data.",
        "MCP servers do not expose tools.",
        "The Model Context Protocol was introduced by Anthropic in 2024 together with OpenAI.",
    ),
    (
        "Mount Everest is 8,849 metres high. It lies on the border between Nepal and China. It was first climbed in 1953.",
        "Mount Everest was first climbed in 1953.",
        "The summit of Everest was reached for the first time in 1953.",
        "Mount Everest does not lie on the border between Nepal and China.",
        "Mount Everest was first climbed in 1953 by a team of 12 climbers.",
    ),
    (
        "SQLite is a library that implements a serverless SQL database engine. A complete database is stored in a single file. It is the most widely deployed database in the world.",
        "SQLite stores a complete database in a single file.",
        "With SQLite the whole database lives in one file on disk.",
        "SQLite is not serverless.",
        "SQLite stores a complete database in a single file of at most 2 GB.",
    ),
    (
        "The Berlin Wall fell on 9 November 1989. It had divided the city since 1961. Germany was reunified in 1990.",
        "The Berlin Wall fell on 9 November 1989.",
        "Berlin was split by the wall from 1961 until it came down in November 1989.",
        "Germany was not reunified in 1990.",
        "The Berlin Wall fell on 9 November 1989 after a mistaken press announcement.",
    ),
    (
        "Rust 1.0 was released in May 2015. The language guarantees memory safety without a garbage collector. Its package manager is called Cargo.",
        "Rust 1.0 was released in May 2015.",
        "Rust keeps memory safe even though it has no garbage collector.",
        "Rust does not guarantee memory safety.",
        "Rust 1.0 was released in May 2015 by a team of 40 engineers at Mozilla.",
    ),
    (
        "The human heart has four chambers. It beats about 100,000 times a day. It pumps blood through the circulatory system.",
        "The human heart has four chambers.",
        "Every day the heart beats roughly a hundred thousand times.",
        "The human heart does not pump blood through the circulatory system.",
        "The human heart has four chambers and weighs 300 grams in adults.",
    ),
    (
        "Lake Baikal in Siberia is the deepest lake in the world. Its maximum depth is 1,642 metres. It holds about 20 percent of the world's unfrozen fresh water.",
        "Lake Baikal's maximum depth is 1,642 metres.",
        "No lake on Earth is deeper than Baikal.",
        "Lake Baikal is not the deepest lake in the world.",
        "Lake Baikal's maximum depth is 1,642 metres and it is 25 million years old.",
    ),
    (
        "FinanceBench is a benchmark for question answering over financial documents. Its questions concern the public filings of listed companies. It contains 10,231 questions.",
        "FinanceBench contains 10,231 questions.",
        "The FinanceBench questions ask about public companies' filings.",
        "FinanceBench is not a benchmark for question answering.",
        "FinanceBench contains 10,231 questions written by 20 financial analysts.",
    ),
    (
        "Kubernetes was released by Google in 2014. It automates the deployment and scaling of containers. The project is maintained by the Cloud Native Computing Foundation.",
        "Kubernetes was released by Google in 2014.",
        "Kubernetes handles rolling out and scaling containerised applications automatically.",
        "Kubernetes is not maintained by the Cloud Native Computing Foundation.",
        "Kubernetes was released by Google in 2014 under the Apache licence.",
    ),
    (
        "The Sahara is the largest hot desert in the world. It covers about 9.2 million square kilometres. It spans 11 countries in North Africa.",
        "The Sahara covers about 9.2 million square kilometres.",
        "No hot desert is bigger than the Sahara.",
        "The Sahara is not the largest hot desert in the world.",
        "The Sahara covers about 9.2 million square kilometres and receives 25 mm of rain a year.",
    ),
    (
        "The W3C published PROV-O as a Recommendation in 2013. PROV-O models provenance with entities, activities and agents. It is expressed in OWL2.",
        "The W3C published PROV-O as a Recommendation in 2013.",
        "PROV-O describes provenance in terms of entities, activities and agents.",
        "PROV-O is not expressed in OWL2.",
        "The W3C published PROV-O as a Recommendation in 2013 after six years of work.",
    ),
    (
        "The Danube is the second-longest river in Europe. It is about 2,850 km long. It flows into the Black Sea.",
        "The Danube is about 2,850 km long.",
        "Only one river in Europe is longer than the Danube.",
        "The Danube does not flow into the Black Sea.",
        "The Danube is about 2,850 km long and has 60 navigable tributaries.",
    ),
    (
        "Workers AI runs machine learning models on Cloudflare's network. Models are called through a REST API or from Workers. Pricing is based on neurons.",
        "Workers AI runs machine learning models on Cloudflare's network.",
        "Developers can call Workers AI models over a REST API.",
        "Workers AI pricing is not based on neurons.",
        "Workers AI runs machine learning models on Cloudflare's network in 180 cities.",
    ),
    (
        "Marie Curie won the Nobel Prize in Physics in 1903. She won the Nobel Prize in Chemistry in 1911. She was the first person to win two Nobel Prizes.",
        "Marie Curie won the Nobel Prize in Chemistry in 1911.",
        "Curie was the first person ever awarded two Nobel Prizes.",
        "Marie Curie did not win the Nobel Prize in Physics.",
        "Marie Curie won the Nobel Prize in Chemistry in 1911 for research funded by the French state.",
    ),
    (
        "The International Space Station orbits at about 400 km altitude. It completes an orbit roughly every 90 minutes. It has been continuously occupied since 2000.",
        "The International Space Station orbits at about 400 km altitude.",
        "People have lived aboard the ISS without a break since 2000.",
        "The International Space Station has not been continuously occupied since 2000.",
        "The International Space Station orbits at about 400 km altitude and weighs 420 tonnes.",
    ),
    (
        "GitHub Actions runs workflows defined in YAML files. Workflows live in the .github/workflows directory. Jobs run on hosted or self-hosted runners.",
        "GitHub Actions runs workflows defined in YAML files.",
        "GitHub Actions workflows are written in YAML.",
        "Jobs cannot run on self-hosted runners.",
        "GitHub Actions runs workflows defined in YAML files with a limit of 20 jobs per workflow.",
    ),
    (
        "Canberra is the capital of Australia. It was selected as the capital in 1908. Parliament moved there in 1927.",
        "Canberra was selected as the capital in 1908.",
        "Australia's parliament relocated to Canberra in 1927.",
        "Canberra is not the capital of Australia.",
        "Canberra was selected as the capital in 1908 as a compromise between Sydney and Melbourne.",
    ),
]

JA = [
    (
        "富士山は静岡県と山梨県にまたがる活火山である。標高は3776メートルで、日本で最も高い山である。最後の噴火は1707年の宝永噴火である。",
        "富士山の標高は3776メートルである。",
        "日本に富士山より高い山はない。",
        "富士山は活火山ではない。",
        "富士山の標高は3776メートルで、毎年30万人が登頂する。",
    ),
    (
        "東京タワーは東京都港区にある総合電波塔である。高さは333メートルである。1958年に完成した。",
        "東京タワーの高さは333メートルである。",
        "港区の電波塔が出来上がったのは1958年のことだ。",
        "東京タワーは電波塔ではない。",
        "東京タワーの高さは333メートルで、建設には2億円かかった。",
    ),
    (
        "琵琶湖は滋賀県にある日本最大の湖である。面積は約670平方キロメートルである。近畿地方の水がめと呼ばれている。",
        "琵琶湖の面積は約670平方キロメートルである。",
        "日本でいちばん大きな湖は滋賀県の琵琶湖だ。",
        "琵琶湖は日本最大の湖ではない。",
        "琵琶湖の面積は約670平方キロメートルで、約40万年前に形成された。",
    ),
    (
        "新幹線は1964年に開業した。最初の路線は東京と大阪を結んだ。現在の最高速度は時速320キロである。",
        "新幹線は1964年に開業した。",
        "最初の新幹線は東京・大阪間で運行を始めた。",
        "新幹線は東京と大阪を結んでいない。",
        "新幹線は1964年に開業し、初日に3万人が乗車した。",
    ),
    (
        "大阪城は豊臣秀吉が築いた城である。現在の天守閣は1931年に再建された。天守閣の内部は博物館になっている。",
        "現在の大阪城天守閣は1931年に再建された。",
        "大阪城を建てたのは豊臣秀吉である。",
        "天守閣の内部は博物館になっていない。",
        "現在の大阪城天守閣は1931年に市民の寄付150万円で再建された。",
    ),
    (
        "Canaryリリースは、新しい変更をまず一部の対象だけに適用する手法である。問題がなければ段階的に対象を広げる。名前は炭鉱のカナリアに由来する。",
        "Canaryリリースは、新しい変更をまず一部の対象だけに適用する手法である。",
        "新しい変更はまず少数の対象で試し、問題がなければ範囲を広げていく。",
        "Canaryリリースは段階的に対象を広げない。",
        "Canaryリリースは、新しい変更をまず全体の5%の対象だけに適用する手法である。",
    ),
    (
        "W3C PROV-Oは2013年にW3C勧告となった。PROV-Oは来歴をEntity、Activity、Agentの3要素で表す。OWL2で記述されている。",
        "W3C PROV-Oは2013年にW3C勧告となった。",
        "PROV-Oでは来歴を実体・活動・行為者の三つで表現する。",
        "PROV-OはOWL2で記述されていない。",
        "W3C PROV-Oは2013年にW3C勧告となり、日本政府にも採用された。",
    ),
    (
        "冪等性とは、同じ操作を何度実行しても結果が変わらない性質である。再実行しても状態が壊れない。HTTPのGETは冪等である。",
        "冪等性とは、同じ操作を何度実行しても結果が変わらない性質である。",
        "何回繰り返しても同じ結果になる操作は冪等だといえる。",
        "HTTPのGETは冪等ではない。",
        "冪等性とは、同じ操作を何度実行しても結果が変わらない性質で、1970年代に提唱された。",
    ),
    (
        "日本の人口は2023年時点で約1億2400万人である。人口は2008年をピークに減少している。65歳以上の割合は29%を超えた。",
        "日本の人口は2023年時点で約1億2400万人である。",
        "日本の人口は2008年を境に減り続けている。",
        "日本の人口は減少していない。",
        "日本の人口は2023年時点で約1億2400万人で、そのうち外国人は300万人である。",
    ),
    (
        "信濃川は日本で最も長い川である。長さは367キロメートルである。新潟県で日本海に注ぐ。",
        "信濃川の長さは367キロメートルである。",
        "日本で一番長い川は信濃川だ。",
        "信濃川は日本海に注がない。",
        "信濃川の長さは367キロメートルで、流域には約300万人が住む。",
    ),
    (
        "姫路城は1993年に世界文化遺産に登録された。白い外観から白鷺城とも呼ばれる。天守は江戸時代初期に建てられた。",
        "姫路城は1993年に世界文化遺産に登録された。",
        "姫路城はその白い姿から白鷺城という別名を持つ。",
        "姫路城は世界文化遺産に登録されていない。",
        "姫路城は1993年に法隆寺とともに日本で最初に世界文化遺産に登録され、年間200万人が訪れる。",
    ),
    (
        "Obsidianはノートをローカルフォルダ内のMarkdownファイルとして保存する。このフォルダはVaultと呼ばれる。プラグインで機能を拡張できる。",
        "ObsidianはノートをローカルフォルダのMarkdownファイルとして保存する。",
        "Obsidianのノートは手元のディスクにMarkdown形式で置かれる。",
        "Obsidianはプラグインで機能を拡張できない。",
        "Obsidianはノートをローカルフォルダ内のMarkdownファイルとして暗号化して保存する。",
    ),
    (
        "奈良の大仏は752年に開眼供養が行われた。高さは約15メートルである。東大寺の本尊である。",
        "奈良の大仏は752年に開眼供養が行われた。",
        "東大寺の本尊は奈良の大仏である。",
        "奈良の大仏は東大寺の本尊ではない。",
        "奈良の大仏は752年に開眼供養が行われ、1万人の僧が参列した。",
    ),
    (
        "北海道の面積は約8万3千平方キロメートルである。日本の都道府県で最も広い。道庁所在地は札幌市である。",
        "北海道は日本の都道府県で最も広い。",
        "日本で一番面積の大きい都道府県は北海道だ。",
        "北海道の道庁所在地は札幌市ではない。",
        "北海道は日本の都道府県で最も広く、人口は600万人を超える。",
    ),
    (
        "Gitは2005年にリーナス・トーバルズが開発した。Linuxカーネルの開発を管理するために作られた。Gitは差分ではなくスナップショットを保存する。",
        "Gitは2005年にリーナス・トーバルズが開発した。",
        "GitはLinuxカーネル開発の管理のために生まれた。",
        "Gitはスナップショットを保存しない。",
        "Gitは2005年にリーナス・トーバルズがわずか10日間で開発した。",
    ),
    (
        "メタデータ限定更新では、反映処理が変更できるのはverificationとevidenceのプロパティだけである。本文や参考文献は変更しない。変更範囲はホワイトリストで定める。",
        "反映処理が変更できるのはverificationとevidenceのプロパティだけである。",
        "本文や参考文献は反映処理では書き換えない。",
        "反映処理は本文を変更する。",
        "反映処理が変更できるのはverificationとevidenceのプロパティだけで、1日に100件まで更新できる。",
    ),
    (
        "白神山地は青森県と秋田県にまたがるブナの原生林である。1993年に世界自然遺産に登録された。面積は約13万ヘクタールである。",
        "白神山地は1993年に世界自然遺産に登録された。",
        "白神山地には手つかずのブナ林が広がっている。",
        "白神山地は世界自然遺産に登録されていない。",
        "白神山地は1993年に世界自然遺産に登録され、年間50万人の観光客が訪れる。",
    ),
    (
        "ChallengeResponse承認では、承認者が計画のダイジェストを入力する。単にOKと答えるだけでは本番実行できない。ダイジェストは対象ファイルのハッシュ値から作られる。",
        "単にOKと答えるだけでは本番実行できない。",
        "承認するには計画のダイジェストを打ち込む必要がある。",
        "ダイジェストは対象ファイルのハッシュ値から作られない。",
        "単にOKと答えるだけでは本番実行できず、承認は3人以上で行う。",
    ),
    (
        "鮮度管理では前回の検証から90日を過ぎたノートを再検証の対象とする。本文の変更も再検証のきっかけになる。参考文献の変更も同様である。",
        "鮮度管理では前回の検証から90日を過ぎたノートを再検証の対象とする。",
        "ノートの本文が書き換えられると再検証が必要になる。",
        "参考文献の変更は再検証のきっかけにならない。",
        "鮮度管理では前回の検証から90日を過ぎたノートを再検証の対象とし、毎週月曜日に自動で通知する。",
    ),
    (
        "屋久島は1993年に世界自然遺産に登録された。樹齢数千年の屋久杉で知られる。年間降水量は4000ミリを超える地域がある。",
        "屋久島は樹齢数千年の屋久杉で知られる。",
        "屋久島は推定樹齢が何千年もの杉で有名だ。",
        "屋久島は世界自然遺産に登録されていない。",
        "屋久島は樹齢数千年の屋久杉で知られ、島の人口は約1万3千人である。",
    ),
    (
        "日本の国会は衆議院と参議院の二院制である。衆議院の任期は4年である。参議院の任期は6年で、3年ごとに半数が改選される。",
        "衆議院の任期は4年である。",
        "日本の国会は衆議院と参議院の二つの院からなる。",
        "日本の国会は二院制ではない。",
        "衆議院の任期は4年で、定数は500人である。",
    ),
    (
        "Stage Fでは、再検証期限まで7日以内のノートを次のバッチ候補にする。8日から14日は準備、15日から30日は監視とする。30日を超えるノートは対象外である。",
        "再検証期限まで7日以内のノートを次のバッチ候補にする。",
        "期限まで一か月より余裕のあるノートは対象にしない。",
        "30日を超えるノートも対象になる。",
        "再検証期限まで7日以内のノートを次のバッチ候補にし、担当者2名が確認する。",
    ),
    (
        "関門トンネルは本州と九州を結ぶ海底トンネルである。1942年に鉄道トンネルが開通した。人道トンネルは歩いて渡ることができる。",
        "関門トンネルは1942年に鉄道トンネルが開通した。",
        "関門トンネルは本州と九州の間の海の下を通る。",
        "人道トンネルは歩いて渡ることができない。",
        "関門トンネルは1942年に鉄道トンネルが開通し、工事には7年かかった。",
    ),
    (
        "Markdownの見出しは行頭の#の数でレベルを表す。#が1つなら最上位の見出しである。見出しは6段階まで使える。",
        "Markdownの見出しは6段階まで使える。",
        "行の先頭に置く#の個数で見出しの階層が決まる。",
        "Markdownの見出しは#の数でレベルを表さない。",
        "Markdownの見出しは6段階まで使え、1998年に標準化された。",
    ),
    (
        "GitHub ActionsのワークフローはYAMLファイルで定義する。ファイルは.github/workflowsディレクトリに置く。ジョブはホストランナーかセルフホストランナーで実行される。",
        "GitHub ActionsのワークフローはYAMLファイルで定義する。",
        "ワークフローの定義ファイルは.github/workflowsに置く。",
        "ジョブはセルフホストランナーで実行できない。",
        "GitHub ActionsのワークフローはYAMLファイルで定義し、1つのリポジトリに最大50個まで置ける。",
    ),
    (
        "京都の清水寺は778年に創建されたと伝えられる。本堂の舞台は釘を使わずに組まれている。1994年に世界文化遺産に登録された。",
        "清水寺は778年に創建されたと伝えられる。",
        "清水寺の舞台は一本の釘も使わずに組み上げられている。",
        "清水寺は世界文化遺産に登録されていない。",
        "清水寺は778年に創建されたと伝えられ、毎年500万人の参拝者が訪れる。",
    ),
    (
        "Reasoning Indexは見出しの構造から知識ベースの目次を作る。ベクトルデータベースを使わない。ノートの行範囲を返す。",
        "Reasoning Indexはベクトルデータベースを使わない。",
        "見出しの階層を手がかりに知識ベースの目次を組み立てる。",
        "Reasoning Indexはノートの行範囲を返さない。",
        "Reasoning Indexはベクトルデータベースを使わず、1万件のノートを1秒で索引する。",
    ),
    (
        "瀬戸大橋は1988年に開通した。岡山県と香川県を結ぶ。道路と鉄道の併用橋である。",
        "瀬戸大橋は1988年に開通した。",
        "瀬戸大橋は岡山と香川の間を結んでいる。",
        "瀬戸大橋は道路と鉄道の併用橋ではない。",
        "瀬戸大橋は1988年に開通し、総工費は1兆1千億円だった。",
    ),
]

_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def change_number(text: str) -> str | None:
    m = _NUM.search(text)
    if not m:
        return None
    raw = m.group()
    digits = raw.replace(",", "")
    if "." in digits:
        new = f"{float(digits) * 1.5:.1f}"
    else:
        value = int(digits)
        new = str(value + 3 if 1000 <= value <= 2100 else value * 2)
        if "," in raw:
            new = f"{int(new):,}"
    return text[: m.start()] + new + text[m.end() :]


def build() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for lang, items in (("en", EN), ("ja", JA)):
        for i, (evidence, close, para, neg, add) in enumerate(items):
            base = {"lang": lang, "evidence": evidence}
            rows.append({**base, "claim": close, "label": "supported", "variant": "close"})
            rows.append({**base, "claim": para, "label": "supported", "variant": "paraphrase"})
            rows.append({**base, "claim": neg, "label": "contradicted", "variant": "negation"})
            rows.append({**base, "claim": add, "label": "not_enough_info", "variant": "added_detail"})
            changed = change_number(close)
            if changed and changed != close:
                rows.append({**base, "claim": changed, "label": "contradicted", "variant": "changed_number"})
            other = items[(i + 7) % len(items)][1]
            rows.append({**base, "claim": other, "label": "not_enough_info", "variant": "unrelated"})
    return rows


def main() -> None:
    rows = build()
    out = Path(__file__).with_name("judge_dev.jsonl")
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(rows)} pairs → {out}")


if __name__ == "__main__":
    main()
