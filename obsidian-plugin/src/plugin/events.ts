import { type Menu, type TAbstractFile, TFile } from "obsidian";
import { t } from "../i18n";
import { ValidateModal } from "../ui/validate-modal";
import type KnowledgeHarnessPlugin from "../main";

const MARKDOWN = /\.md$/i;

/** The workspace and the editor: the active note's badge follows, an edit refreshes it and (debounced) the views of the whole vault. */
export function registerWorkspaceEvents(plugin: KnowledgeHarnessPlugin): void {
	const { app, views } = plugin;
	plugin.registerEvent(
		app.workspace.on("file-open", (file: TFile | null) => {
			views.followActive();
			void plugin.badgeController.refresh(file?.path);
		}),
	);
	plugin.registerEvent(app.workspace.on("active-leaf-change", () => views.followActive()));
	plugin.registerEvent(app.workspace.on("layout-change", () => plugin.explorerMarkers.applySoon()));
	plugin.registerEvent(
		app.metadataCache.on("changed", (file: TFile) => {
			// Only notes whose badge is known or on screen: nobody looks at the others.
			if (plugin.badges.has(file.path) || plugin.badges.isWatched(file.path)) plugin.badgeController.refreshSoon(file.path);
			// The views that show the whole vault follow the edit once typing pauses (one audit).
			if (MARKDOWN.test(file.path)) plugin.audits.edited();
		}),
	);
	plugin.registerEvent(app.workspace.on("file-menu", (menu: Menu, file: TAbstractFile) => fileMenu(plugin, menu, file)));
}

/** Renames, deletions and new notes: badges move or go, and the shared audit follows once per burst. */
export function registerVaultEvents(plugin: KnowledgeHarnessPlugin): void {
	const { app } = plugin;
	plugin.registerEvent(
		app.vault.on("rename", (file: TAbstractFile, oldPath: string) => {
			plugin.badges.rename(oldPath, file.path);
			if (plugin.planBasket.delete(oldPath)) plugin.planBasket.add(file.path);
			if (file instanceof TFile && MARKDOWN.test(file.path)) plugin.badgeController.refreshSoon(file.path);
			plugin.audits.invalidate();
			plugin.views.followActive();
		}),
	);
	plugin.registerEvent(
		app.vault.on("delete", (file: TAbstractFile) => {
			plugin.badges.delete(file.path);
			plugin.planBasket.delete(file.path);
			plugin.audits.invalidate();
		}),
	);
	plugin.registerEvent(
		app.vault.on("create", (file: TAbstractFile) => {
			if (!(file instanceof TFile) || !MARKDOWN.test(file.path)) return;
			if (plugin.badges.isWatched(file.path)) plugin.badgeController.refreshSoon(file.path);
			plugin.audits.invalidate();
		}),
	);
}

/** A note's menu in the file explorer: validate it, its trust details, add it to the next plan. */
function fileMenu(plugin: KnowledgeHarnessPlugin, menu: Menu, file: TAbstractFile): void {
	if (!(file instanceof TFile) || !MARKDOWN.test(file.path)) return;
	const path = file.path;
	menu.addItem((item) =>
		item
			.setTitle(t("menu.validate"))
			.setIcon("shield-check")
			.onClick(() => new ValidateModal(plugin, path).open()),
	);
	menu.addItem((item) =>
		item
			.setTitle(t("menu.details"))
			.setIcon("info")
			.onClick(() => plugin.views.openDetails(path)),
	);
	menu.addItem((item) =>
		item
			.setTitle(t("menu.addToPlan"))
			.setIcon("list-plus")
			.onClick(() => plugin.addToPlan(path)),
	);
}
