import type { Messages } from "./en";

/** Japanese UI strings. Must define every key of `en.ts`. */
export const ja: Messages = {
	"status.starting": "サイドカー起動中…",
	"status.ready": "サイドカー準備完了",
	"status.offline": "サイドカー停止中",
	"status.tooltip.starting": "Knowledge Harness のサイドカーを起動しています。",
	"status.tooltip.ready": "Knowledge Harness のサイドカーはポート {port} で待ち受けています。",
	"status.tooltip.offline": "Knowledge Harness のサイドカーは動いていません。クリックすると起動します。",
	"status.tooltip.offlineError": "Knowledge Harness のサイドカーは動いていません（{error}）。クリックすると起動します。",

	"command.restart": "サイドカーを再起動",

	"notice.noFileSystem": "Knowledge Harness は、このコンピューターのファイルシステム上にある保管庫でのみ動作します。",
	"notice.restarting": "Knowledge Harness のサイドカーを再起動しています…",
	"notice.commandNotFound": "サイドカーのコマンド「{command}」が見つかりません。プラグイン設定でフルパスを指定してください。",

	"error.commandNotFound": "コマンドが見つかりません",
	"error.exited": "サイドカーが終了しました（コード {code}）",
	"error.listeningTimeout": "サイドカーが時間内にポートを知らせませんでした",
	"error.healthTimeout": "サイドカーが時間内にヘルスチェックに応答しませんでした",
	"error.spawnFailed": "サイドカーを起動できませんでした（{message}）",

	"settings.command.name": "サイドカーのコマンド",
	"settings.command.desc": "kh の実行ファイル。Obsidian が PATH から見つけられない場合はフルパスを指定してください。サイドカーの再起動後に反映されます。",
	"settings.args.name": "追加の引数",
	"settings.args.desc": "\"serve\" の前に渡す引数（1 行に 1 つ）。kh の実行ファイルなら空のままにします。",
	"settings.port.name": "ポート",
	"settings.port.desc": "127.0.0.1 上のポート。0 にすると起動のたびに空きポートを選びます。",
	"settings.port.invalid": "0 から 65535 までの整数を入力してください。",
	"settings.autoStart.name": "自動で起動",
	"settings.autoStart.desc": "Obsidian がこの保管庫を開いたときにサイドカーを起動します。",
	"settings.language.name": "言語",
	"settings.language.desc": "このプラグインの表示言語。コマンド名はプラグインの再読み込み後に変わります。",
	"settings.language.auto": "Obsidian と同じ",
	"settings.restart.name": "サイドカーを再起動",
	"settings.restart.desc": "サイドカーを停止し、上の設定で起動し直します。",
	"settings.restart.button": "再起動",
};
