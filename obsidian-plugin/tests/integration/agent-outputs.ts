/**
 * What an external agent submits for each agent operation of a harness run
 * (O-05 … O-10), so the integration test can bring a real run to its review.
 * The same outputs as scripts/capture-fixtures.py; valid by docs/pipeline.md.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface AgentTask {
	task_id: string;
	operation: string;
	inputs: Record<string, unknown>;
}

const OLD_POST = ".. post:: 2026-03-02\n   :tags: cooking\n   :language: ja\n\nカレーの作り方\n==============\n\n玉ねぎをよく炒めてから、スパイスを加えて煮込みます。\n";

function git(repo: string, ...args: string[]): void {
	execFileSync("git", ["-c", "user.name=Test Person", "-c", "user.email=person@example.invalid", "-C", repo, ...args], {
		stdio: "ignore",
	});
}

/** A throwaway blog repository (branch main, one old post) for O-06's past articles and O-10's candidate. */
export function makeBlog(root: string): string {
	const blog = path.join(root, "blog");
	const posts = path.join(blog, "docs", "blog", "posts");
	mkdirSync(posts, { recursive: true });
	git(blog, "init", "-q", "-b", "main");
	writeFileSync(path.join(posts, "2026-03-02-curry.rst"), OLD_POST);
	writeFileSync(path.join(blog, "docs", "index.rst"), "Blog\n====\n");
	git(blog, "add", "-A");
	git(blog, "commit", "-q", "-m", "initial");
	return blog;
}

function axis(refs: Record<string, string[]>): Record<string, unknown> {
	return { verdict: "PASS", confidence: 0.9, reasons: "Packetの出典が論点を支えている。", ...refs };
}

export function agentOutput(task: AgentTask): Record<string, unknown> {
	const inputs = task.inputs;
	switch (task.operation) {
		case "O-05": {
			const sources = inputs.sources as { source_id: string; source_class: string }[];
			const sid = sources.find((s) => s.source_class === "primary" || s.source_class === "secondary")?.source_id ?? "";
			return {
				issues: [
					{
						issue_id: "I1",
						title: "反映範囲を verification と evidence に限定する理由",
						facts: [{ id: "F1", statement: "メタデータ限定更新では反映処理が変更できるのは verification と evidence だけである。", source_ids: [sid] }],
						inferences: [{ id: "N1", statement: "本文が変わらないため意図しない改変が起きにくい。", source_ids: [sid] }],
						unknowns: [{ id: "U1", statement: "対象バージョンは未確認。", source_ids: [sid] }],
						reactions: [],
						contradictions: [],
					},
				],
				uncertainties: [{ id: "X1", item: "対象バージョンが未確認", impact: "記事では版を限定しない", source_ids: [sid] }],
				past_articles: null,
				// a Japanese summary of every cited source, in the agent's own words
				source_summaries: [{ source_id: sid, summary_ja: "この出典は、反映処理が変更できる範囲を verification と evidence に限る理由を説明している。" }],
			};
		}
		case "O-06": {
			// Novelty is judged against the blog's past articles: cite the ones compared (P1, …).
			const past = ((inputs.past_articles as { ref_id: string }[] | null | undefined) ?? []).map((p) => p.ref_id);
			return {
				axes: {
					evidence_sufficiency: axis({ packet_refs: ["F1"] }),
					novelty: axis({ packet_refs: ["F1", ...past.slice(0, 1)] }),
					reader_value: {
						...axis({ packet_refs: ["F1"] }),
						aspects: {
							reproducibility: "運用ルールとして再現できる",
							transferability: "他の知識ベースにも使える",
							search_motive: "AIに直させる範囲で検索される",
						},
					},
					author_question: axis({ packet_refs: ["I1"] }),
				},
				uncertainty_impact: { level: "LOW", reasons: "対象バージョンは未確認だが核心ではない。", packet_refs: ["X1"] },
				central_claim: "検証結果の反映を verification と evidence に限ると本文の意図しない改変を防げる。",
			};
		}
		case "O-07": {
			const treatments: Record<string, string> = { X1: "DISCLOSE", U1: "LIMIT_CLAIM" };
			return {
				working_title: "メタデータ限定更新はなぜ安全か",
				central_message: "検証結果の反映を verification と evidence に限ると、本文を守ったまま検証を回せる。",
				audience: "Obsidian と AI エージェントで知識ベースを育てている人",
				search_motive: "AIに検証結果を書き戻させるときの安全な範囲を知りたい",
				structure_type: "CONCEPT_EXPLANATION",
				exclusions: [{ what: "PROV-O の詳細", reason: "中心メッセージに不要" }],
				sections: [
					{ id: "S1", heading: "反映できる範囲", purpose: "ルールを示す", reader_gain: "何が変わり何が変わらないか分かる", packet_refs: ["F1", "X1"] },
					{ id: "S2", heading: "まとめ", purpose: "利点と限界", reader_gain: "運用に取り入れる判断ができる", packet_refs: ["N1", "U1"] },
				],
				uncertainty_handling: (inputs.uncertainties as { id: string }[]).map((u) => ({
					uncertainty_id: u.id,
					treatment: treatments[u.id] ?? "EXCLUDE",
					reason: "記事の主張の範囲を明確にするため。",
				})),
				author_question: null,
			};
		}
		case "O-08":
			return {
				ai_scope_ja: "この下書きは AI が Evidence Packet と Article Plan から作成しました。事実の最終確認と公開判断は人間が行います。",
				target_version: "未確認",
				blocks: [
					{
						block_id: "B1",
						section_id: "S1",
						rst: "反映処理が変更できるのは frontmatter の verification と evidence だけです。\n\n対象バージョンは未確認のため、版による違いは断定しません。",
						packet_refs: ["F1", "X1"],
					},
					{
						block_id: "B2",
						section_id: "S2",
						rst: "本文が変わらないので、意図しない改変が起きにくくなります。\n\nただし、この結論は確認できた範囲に限ります。",
						packet_refs: ["N1", "U1"],
					},
				],
			};
		case "O-09": {
			const names = ["factual_support", "no_leap", "reader_value", "plan_consistency", "uncertainty_treatment"];
			return { axes: Object.fromEntries(names.map((name) => [name, axis({ block_refs: ["B1"], packet_refs: ["F1"] })])) };
		}
		case "O-10":
			return {
				title: "メタデータ限定更新はなぜ安全か",
				slug: "metadata-only-validation",
				tags: ["obsidian", "ai"],
				pr_description_ja: "中心メッセージ: 反映は verification と evidence だけ。主要根拠: vault のノート。無回答なら公開しません。",
			};
		default:
			throw new Error(`no output for ${task.operation}`);
	}
}
