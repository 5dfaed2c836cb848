/**
 * A small runtime stand-in for the `obsidian` package (which ships types
 * only), aliased in vitest.config.ts. Types still come from the real
 * obsidian.d.ts; this file only has to behave well enough for the tests.
 */

import { StateField } from "@codemirror/state";

// ---- Obsidian's DOM helpers on HTMLElement ----

interface DomElementOptions {
	cls?: string | string[];
	text?: string;
	attr?: Record<string, string>;
}

function installDomHelpers(): void {
	const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
	if (typeof proto.setText === "function") return;
	const helpers: Record<string, (this: HTMLElement, ...args: never[]) => unknown> = {
		setText(this: HTMLElement, text: string) {
			this.textContent = text;
		},
		addClass(this: HTMLElement, ...classes: string[]) {
			this.classList.add(...classes);
		},
		removeClass(this: HTMLElement, ...classes: string[]) {
			this.classList.remove(...classes);
		},
		toggleClass(this: HTMLElement, cls: string, value: boolean) {
			this.classList.toggle(cls, value);
		},
		hasClass(this: HTMLElement, cls: string) {
			return this.classList.contains(cls);
		},
		setAttr(this: HTMLElement, name: string, value: string | number | boolean | null) {
			if (value === null) this.removeAttribute(name);
			else this.setAttribute(name, String(value));
		},
		empty(this: HTMLElement) {
			while (this.firstChild) this.removeChild(this.firstChild);
		},
		createEl(this: HTMLElement, tag: string, options?: DomElementOptions | string) {
			return createChild(this, tag, options);
		},
		createDiv(this: HTMLElement, options?: DomElementOptions | string) {
			return createChild(this, "div", options);
		},
		createSpan(this: HTMLElement, options?: DomElementOptions | string) {
			return createChild(this, "span", options);
		},
		createSvg(this: Element, tag: string, options?: DomElementOptions | string) {
			return createSvgChild(this, tag, options);
		},
		setCssProps(this: HTMLElement, props: Record<string, string>) {
			for (const [name, value] of Object.entries(props)) this.style.setProperty(name, value);
		},
		hide(this: HTMLElement) {
			this.classList.add("mock-hidden");
		},
		show(this: HTMLElement) {
			this.classList.remove("mock-hidden");
		},
	};
	for (const [name, fn] of Object.entries(helpers)) {
		Object.defineProperty(proto, name, { value: fn, configurable: true, writable: true });
	}
	// Obsidian's fragments create children the same way (notices with buttons).
	const fragmentProto = DocumentFragment.prototype as unknown as Record<string, unknown>;
	for (const name of ["createEl", "createDiv", "createSpan"]) {
		Object.defineProperty(fragmentProto, name, { value: helpers[name], configurable: true, writable: true });
	}
	// SVG elements get the same helpers (createSvg, addClass, setAttr, ...).
	const svgProto = SVGElement.prototype as unknown as Record<string, unknown>;
	for (const name of ["createSvg", "addClass", "removeClass", "toggleClass", "setAttr", "empty", "setText"]) {
		Object.defineProperty(svgProto, name, { value: helpers[name], configurable: true, writable: true });
	}
}

const SVG_NS = "http://www.w3.org/2000/svg";

function createSvgChild(parent: Element, tag: string, options?: DomElementOptions | string): SVGElement {
	const el = parent.ownerDocument.createElementNS(SVG_NS, tag);
	const opts: DomElementOptions = typeof options === "string" ? { cls: options } : (options ?? {});
	if (opts.cls) el.classList.add(...(Array.isArray(opts.cls) ? opts.cls : opts.cls.split(" ")));
	for (const [key, value] of Object.entries(opts.attr ?? {})) el.setAttribute(key, value);
	parent.appendChild(el);
	return el;
}

function createChild(parent: HTMLElement | DocumentFragment, tag: string, options?: DomElementOptions | string): HTMLElement {
	const el = parent.ownerDocument.createElement(tag);
	const opts: DomElementOptions = typeof options === "string" ? { cls: options } : (options ?? {});
	if (opts.cls) el.classList.add(...(Array.isArray(opts.cls) ? opts.cls : opts.cls.split(" ")));
	if (opts.text !== undefined) el.textContent = opts.text;
	for (const [key, value] of Object.entries(opts.attr ?? {})) el.setAttribute(key, value);
	parent.appendChild(el);
	return el;
}

/** Obsidian's global element factories (createEl, createDiv, ...). */
function installGlobalFactories(): void {
	const target = window as unknown as Record<string, unknown>;
	if (typeof target.createEl === "function") return;
	const holder = () => document.body ?? document.documentElement;
	const detach = (el: HTMLElement) => {
		el.remove();
		return el;
	};
	target.createEl = (tag: string, options?: DomElementOptions | string) => detach(createChild(holder(), tag, options));
	target.createDiv = (options?: DomElementOptions | string) => detach(createChild(holder(), "div", options));
	target.createSpan = (options?: DomElementOptions | string) => detach(createChild(holder(), "span", options));
	target.createFragment = () => document.createDocumentFragment();
}

installDomHelpers();
installGlobalFactories();

// ---- platform, language, network ----

export const Platform = {
	isDesktop: true,
	isDesktopApp: true,
	isMobile: false,
	isMobileApp: false,
	isMacOS: false,
	isWin: false,
	isLinux: true,
};

export const mockState = {
	apiVersion: "1.13.1",
	language: "en",
	momentLocale: "en",
};

function compareVersions(a: string, b: string): number {
	const pa = a.split(".").map(Number);
	const pb = b.split(".").map(Number);
	for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
		const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (diff !== 0) return diff;
	}
	return 0;
}

export function requireApiVersion(version: string): boolean {
	return compareVersions(mockState.apiVersion, version) >= 0;
}

export function getLanguage(): string {
	return mockState.language;
}

export const moment = {
	locale(): string {
		return mockState.momentLocale;
	},
};

export interface MockRequestUrlParam {
	url: string;
	method?: string;
	headers?: Record<string, string>;
	body?: string | ArrayBuffer;
	contentType?: string;
	throw?: boolean;
}

export interface MockRequestUrlResponse {
	status: number;
	text: string;
	headers?: Record<string, string>;
}

/** Replace to control what `requestUrl` answers. */
export const requestUrlMock: { handler: (param: MockRequestUrlParam) => Promise<MockRequestUrlResponse> } = {
	handler: () => Promise.reject(new Error("requestUrl is not mocked in this test")),
};

export async function requestUrl(param: MockRequestUrlParam | string): Promise<MockRequestUrlResponse> {
	const request = typeof param === "string" ? { url: param } : param;
	const response = await requestUrlMock.handler(request);
	return { headers: {}, ...response };
}

// ---- notices ----

export class Notice {
	static readonly shown: string[] = [];
	/** Every notice made, newest last (tests click buttons in `noticeEl`). */
	static readonly instances: Notice[] = [];
	message: string;
	readonly noticeEl: HTMLElement = document.createElement("div");
	readonly duration: number | undefined;

	constructor(message: string | DocumentFragment, duration?: number) {
		this.message = typeof message === "string" ? message : (message.textContent ?? "");
		if (typeof message === "string") this.noticeEl.textContent = message;
		else this.noticeEl.appendChild(message);
		this.duration = duration;
		Notice.shown.push(this.message);
		Notice.instances.push(this);
	}

	setMessage(message: string): this {
		this.message = message;
		return this;
	}

	hide(): void {
		// nothing to hide
	}
}

// ---- components and plugins ----

export class Component {
	private cleanups: (() => void)[] = [];

	load(): void {
		this.onload();
	}

	onload(): void {
		// overridden
	}

	unload(): void {
		this.onunload();
		for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
	}

	onunload(): void {
		// overridden
	}

	register(cleanup: () => void): void {
		this.cleanups.push(cleanup);
	}

	registerEvent(ref: { off?: () => void }): void {
		this.register(() => ref.off?.());
	}

	registerDomEvent(el: EventTarget, type: string, listener: EventListener): void {
		el.addEventListener(type, listener);
		this.register(() => el.removeEventListener(type, listener));
	}

	registerInterval(id: number): number {
		this.register(() => window.clearInterval(id));
		return id;
	}
}

export class TFile {
	path: string;
	basename: string;
	extension: string;

	constructor(path: string) {
		this.path = path;
		const name = path.split("/").pop() ?? path;
		this.extension = name.includes(".") ? (name.split(".").pop() ?? "") : "";
		this.basename = name.replace(/\.[^.]*$/, "");
	}
}

export class Events {
	private handlers = new Map<string, ((...args: unknown[]) => unknown)[]>();

	on(name: string, callback: (...args: unknown[]) => unknown): { off: () => void } {
		const list = this.handlers.get(name) ?? [];
		list.push(callback);
		this.handlers.set(name, list);
		return { off: () => this.handlers.set(name, (this.handlers.get(name) ?? []).filter((cb) => cb !== callback)) };
	}

	trigger(name: string, ...args: unknown[]): void {
		for (const callback of this.handlers.get(name) ?? []) callback(...args);
	}
}

export class WorkspaceLeaf {
	view: unknown = null;
	app: App;
	viewState: { type: string } | null = null;

	constructor(app: App) {
		this.app = app;
	}

	setViewState(state: { type: string }): Promise<void> {
		this.viewState = state;
		const factory = this.app.workspace.viewFactories.get(state.type);
		if (factory) {
			const view = factory(this) as { onOpen?: () => Promise<void> };
			this.view = view;
			return Promise.resolve(view.onOpen?.());
		}
		return Promise.resolve();
	}
}

export class MarkdownView {
	file: TFile | null;
	saved = 0;

	constructor(file: TFile | null) {
		this.file = file;
	}

	save(): Promise<void> {
		this.saved += 1;
		return Promise.resolve();
	}
}

export class FileSystemAdapter {
	constructor(private readonly basePath: string) {}

	getBasePath(): string {
		return this.basePath;
	}
}

export class Workspace extends Events {
	private readyCallbacks: (() => void)[] = [];
	layoutReady = false;
	readonly leaves: WorkspaceLeaf[] = [];
	readonly viewFactories = new Map<string, (leaf: WorkspaceLeaf) => unknown>();
	activeFile: TFile | null = null;
	readonly opened: { linktext: string; state?: unknown }[] = [];
	app: App | null = null;

	getActiveFile(): TFile | null {
		return this.activeFile;
	}

	getActiveViewOfType<T>(type: new (...args: never[]) => T): T | null {
		const leaf = this.leaves.find((l) => l.view instanceof type);
		return (leaf?.view as T | undefined) ?? null;
	}

	iterateAllLeaves(callback: (leaf: WorkspaceLeaf) => void): void {
		for (const leaf of this.leaves) callback(leaf);
	}

	getLeavesOfType(type: string): WorkspaceLeaf[] {
		return this.leaves.filter((leaf) => leaf.viewState?.type === type);
	}

	getRightLeaf(_split: boolean): WorkspaceLeaf {
		const leaf = new WorkspaceLeaf(this.app as App);
		this.leaves.push(leaf);
		return leaf;
	}

	getLeaf(_newLeaf?: unknown): WorkspaceLeaf {
		return this.getRightLeaf(false);
	}

	readonly revealed: WorkspaceLeaf[] = [];

	setActiveLeaf(_leaf: WorkspaceLeaf, _params?: unknown): void {
		// nothing to focus in tests
	}

	revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
		this.revealed.push(leaf);
		return Promise.resolve();
	}

	openLinkText(linktext: string, _sourcePath: string, _newLeaf?: unknown, state?: unknown): Promise<void> {
		this.opened.push({ linktext, state });
		return Promise.resolve();
	}

	onLayoutReady(callback: () => void): void {
		if (this.layoutReady) callback();
		else this.readyCallbacks.push(callback);
	}

	/** Test helper: fire the layout-ready callbacks. */
	triggerLayoutReady(): void {
		this.layoutReady = true;
		for (const callback of this.readyCallbacks.splice(0)) callback();
	}
}

export class Vault extends Events {
	constructor(readonly adapter: unknown) {
		super();
	}
}

export class App {
	vault: Vault;
	workspace = new Workspace();
	metadataCache = new Events();
	/** This vault's local storage on this device (app.saveLocalStorage / loadLocalStorage). */
	readonly localStorage = new Map<string, unknown>();

	constructor(adapter: unknown = new FileSystemAdapter("/tmp/vault")) {
		this.vault = new Vault(adapter);
		this.workspace.app = this;
	}

	loadLocalStorage(key: string): unknown {
		return this.localStorage.has(key) ? structuredClone(this.localStorage.get(key)) : null;
	}

	saveLocalStorage(key: string, data: unknown): void {
		if (data === null) this.localStorage.delete(key);
		else this.localStorage.set(key, structuredClone(data));
	}
}

export class MenuItem {
	title = "";
	icon = "";
	private handler: (() => unknown) | null = null;

	setTitle(title: string): this {
		this.title = title;
		return this;
	}

	setIcon(icon: string): this {
		this.icon = icon;
		return this;
	}

	onClick(handler: () => unknown): this {
		this.handler = handler;
		return this;
	}

	/** Test helper. */
	click(): unknown {
		return this.handler?.();
	}
}

export class Menu {
	readonly items: MenuItem[] = [];

	addItem(cb: (item: MenuItem) => unknown): this {
		const item = new MenuItem();
		cb(item);
		this.items.push(item);
		return this;
	}
}

export interface MockCommand {
	id: string;
	name: string;
	hotkeys?: unknown[];
	callback?: () => unknown;
}

export class Plugin extends Component {
	app: App;
	manifest: { id: string; name: string; version: string };
	/** What loadData() returns and saveData() stores. */
	data: unknown = null;
	readonly commands: MockCommand[] = [];
	readonly settingTabs: PluginSettingTab[] = [];
	readonly statusBarItems: HTMLElement[] = [];

	constructor(app: App, manifest?: { id: string; name: string; version: string }) {
		super();
		this.app = app;
		this.manifest = manifest ?? { id: "knowledge-harness", name: "Knowledge Harness", version: "0.0.0" };
	}

	loadData(): Promise<unknown> {
		return Promise.resolve(this.data === null ? null : structuredClone(this.data));
	}

	saveData(data: unknown): Promise<void> {
		this.data = structuredClone(data);
		return Promise.resolve();
	}

	addCommand(command: MockCommand): MockCommand {
		this.commands.push(command);
		return command;
	}

	addSettingTab(tab: PluginSettingTab): void {
		this.settingTabs.push(tab);
	}

	addStatusBarItem(): HTMLElement {
		const el = document.createElement("div");
		el.classList.add("status-bar-item");
		this.statusBarItems.push(el);
		return el;
	}

	readonly editorExtensions: unknown[] = [];
	readonly postProcessors: unknown[] = [];

	registerView(type: string, factory: (leaf: WorkspaceLeaf) => unknown): void {
		this.app.workspace.viewFactories.set(type, factory);
	}

	registerEditorExtension(extension: unknown): void {
		this.editorExtensions.push(extension);
	}

	registerMarkdownPostProcessor(processor: unknown): void {
		this.postProcessors.push(processor);
	}

	addRibbonIcon(_icon: string, _title: string, callback: (evt: MouseEvent) => unknown): HTMLElement {
		const el = document.createElement("div");
		el.addEventListener("click", (evt) => callback(evt));
		return el;
	}
}

export class PluginSettingTab {
	app: App;
	plugin: Plugin;
	containerEl: HTMLElement = document.createElement("div");

	constructor(app: App, plugin: Plugin) {
		this.app = app;
		this.plugin = plugin;
	}

	display(): void {
		// overridden
	}

	hide(): void {
		this.containerEl.replaceChildren();
	}
}

export class Modal {
	app: App;
	containerEl: HTMLElement = document.createElement("div");
	modalEl: HTMLElement = document.createElement("div");
	titleEl: HTMLElement = document.createElement("div");
	contentEl: HTMLElement = document.createElement("div");
	isOpen = false;

	constructor(app: App) {
		this.app = app;
	}

	open(): void {
		this.isOpen = true;
		this.onOpen();
	}

	close(): void {
		this.isOpen = false;
		this.onClose();
	}

	onOpen(): void {
		// overridden
	}

	onClose(): void {
		// overridden
	}

	setTitle(title: string): this {
		this.titleEl.textContent = title;
		return this;
	}
}

export class ItemView extends Component {
	leaf: unknown;
	app: App;
	containerEl: HTMLElement = document.createElement("div");
	contentEl: HTMLElement = document.createElement("div");
	readonly actions: { icon: string; title: string; callback: () => unknown }[] = [];

	constructor(leaf: unknown) {
		super();
		this.leaf = leaf;
		this.app = (leaf as { app?: App } | null)?.app ?? new App();
		this.containerEl.appendChild(this.contentEl);
	}

	addAction(icon: string, title: string, callback: () => unknown): HTMLElement {
		this.actions.push({ icon, title, callback });
		return document.createElement("div");
	}

	getIcon(): string {
		return "";
	}

	getViewType(): string {
		return "";
	}

	getDisplayText(): string {
		return "";
	}
}

// ---- settings UI ----

class ValueComponent<T> {
	protected value: T;
	private changeHandler: ((value: T) => unknown) | null = null;

	constructor(initial: T) {
		this.value = initial;
	}

	getValue(): T {
		return this.value;
	}

	setValue(value: T): this {
		this.value = value;
		return this;
	}

	onChange(handler: (value: T) => unknown): this {
		this.changeHandler = handler;
		return this;
	}

	/** Test helper: behave as if the user changed the value. */
	async simulateChange(value: T): Promise<void> {
		this.setValue(value);
		await this.changeHandler?.(value);
	}
}

export class TextComponent extends ValueComponent<string> {
	inputEl: HTMLInputElement;

	constructor(containerEl: HTMLElement) {
		super("");
		this.inputEl = document.createElement("input");
		containerEl.appendChild(this.inputEl);
	}

	override setValue(value: string): this {
		this.inputEl.value = value;
		return super.setValue(value);
	}

	setPlaceholder(placeholder: string): this {
		this.inputEl.placeholder = placeholder;
		return this;
	}
}

export class TextAreaComponent extends ValueComponent<string> {
	inputEl: HTMLTextAreaElement;

	constructor(containerEl: HTMLElement) {
		super("");
		this.inputEl = document.createElement("textarea");
		containerEl.appendChild(this.inputEl);
	}

	override setValue(value: string): this {
		this.inputEl.value = value;
		return super.setValue(value);
	}

	setPlaceholder(placeholder: string): this {
		this.inputEl.placeholder = placeholder;
		return this;
	}
}

export class ToggleComponent extends ValueComponent<boolean> {
	constructor(_containerEl: HTMLElement) {
		super(false);
	}
}

export class DropdownComponent extends ValueComponent<string> {
	readonly options: Record<string, string> = {};

	constructor(_containerEl: HTMLElement) {
		super("");
	}

	addOption(value: string, display: string): this {
		this.options[value] = display;
		return this;
	}

	addOptions(options: Record<string, string>): this {
		Object.assign(this.options, options);
		return this;
	}
}

export class ButtonComponent {
	buttonEl: HTMLButtonElement;
	private clickHandler: (() => unknown) | null = null;

	constructor(containerEl: HTMLElement) {
		this.buttonEl = document.createElement("button");
		containerEl.appendChild(this.buttonEl);
	}

	setButtonText(text: string): this {
		this.buttonEl.textContent = text;
		return this;
	}

	setCta(): this {
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.buttonEl.disabled = disabled;
		return this;
	}

	onClick(handler: () => unknown): this {
		this.clickHandler = handler;
		return this;
	}

	/** Test helper. */
	async click(): Promise<void> {
		await this.clickHandler?.();
	}
}

export type MockSettingComponent =
	| TextComponent
	| TextAreaComponent
	| ToggleComponent
	| DropdownComponent
	| ButtonComponent;

export class Setting {
	settingEl: HTMLElement;
	nameEl: HTMLElement;
	descEl: HTMLElement;
	controlEl: HTMLElement;
	readonly components: MockSettingComponent[] = [];

	constructor(containerEl: HTMLElement) {
		this.settingEl = document.createElement("div");
		this.settingEl.classList.add("setting-item");
		this.nameEl = document.createElement("div");
		this.nameEl.classList.add("setting-item-name");
		this.descEl = document.createElement("div");
		this.descEl.classList.add("setting-item-description");
		this.controlEl = document.createElement("div");
		this.settingEl.append(this.nameEl, this.descEl, this.controlEl);
		containerEl.appendChild(this.settingEl);
		settingRegistry.set(this.settingEl, this);
	}

	setName(name: string): this {
		this.nameEl.textContent = name;
		return this;
	}

	setDesc(desc: string): this {
		this.descEl.textContent = desc;
		return this;
	}

	setHeading(): this {
		this.settingEl.classList.add("setting-item-heading");
		return this;
	}

	addText(cb: (component: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}

	addTextArea(cb: (component: TextAreaComponent) => unknown): this {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}

	addToggle(cb: (component: ToggleComponent) => unknown): this {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}

	addDropdown(cb: (component: DropdownComponent) => unknown): this {
		return this.add(new DropdownComponent(this.controlEl), cb);
	}

	addButton(cb: (component: ButtonComponent) => unknown): this {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}

	private add<C extends MockSettingComponent>(component: C, cb: (component: C) => unknown): this {
		this.components.push(component);
		cb(component);
		return this;
	}
}

const settingRegistry = new WeakMap<HTMLElement, Setting>();

/** Test helper: the Setting objects rendered into a container, in order. */
export function settingsIn(containerEl: HTMLElement): Setting[] {
	return Array.from(containerEl.querySelectorAll<HTMLElement>(".setting-item"))
		.map((el) => settingRegistry.get(el))
		.filter((setting): setting is Setting => setting !== undefined);
}

export class SuggestModal<T> extends Modal {
	emptyStateText = "";
	placeholder = "";

	setPlaceholder(placeholder: string): void {
		this.placeholder = placeholder;
	}

	getSuggestions(_query: string): T[] | Promise<T[]> {
		return [];
	}

	renderSuggestion(_value: T, _el: HTMLElement): void {
		// overridden
	}

	onChooseSuggestion(_item: T, _evt: MouseEvent | KeyboardEvent): void {
		// overridden
	}
}

export class MarkdownRenderChild extends Component {
	containerEl: HTMLElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.containerEl = containerEl;
	}
}

/** Stands in for Obsidian's editorInfoField (a CM6 StateField holding the editor's file). */

export const editorInfoFileMock: { file: TFile | null } = { file: null };

export const editorInfoField = StateField.define<{ file: TFile | null }>({
	create: () => ({ file: editorInfoFileMock.file }),
	update: (value) => value,
});
