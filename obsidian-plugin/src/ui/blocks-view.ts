import type { TrustBlocks } from "../api/types";
import { t } from "../i18n";
import { BLOCK_NAMES, blockLines, diffLines } from "../trust/blocks";

/** Before / after of the `verification` and `evidence` blocks, side by side, changed lines marked. */
export function renderBlocksDiff(parent: HTMLElement, before: TrustBlocks | null, after: TrustBlocks): HTMLElement {
	const wrap = parent.createDiv({ cls: "kh-blocks" });
	const none = t("blocks.none");
	const beforeLines = BLOCK_NAMES.flatMap((name) => blockLines(name, before?.[name], none));
	const afterLines = BLOCK_NAMES.flatMap((name) => blockLines(name, after[name], none));
	const diff = diffLines(beforeLines, afterLines);
	const columns: [string, typeof diff.before][] = [
		[t("blocks.before"), diff.before],
		[t("blocks.after"), diff.after],
	];
	for (const [title, lines] of columns) {
		const column = wrap.createDiv({ cls: "kh-blocks-column" });
		column.createDiv({ cls: "kh-blocks-title", text: title });
		const pre = column.createEl("pre", { cls: "kh-blocks-code" });
		for (const line of lines) {
			pre.createDiv({ cls: `kh-line kh-line-${line.kind}`, text: line.text });
		}
	}
	return wrap;
}
