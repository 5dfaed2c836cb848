/** The coverage gauge, drawn with the DOM API (createSvg), never with markup strings. */
export interface GaugeInput {
	coverage: number;
	threshold: number;
}

const RADIUS = 40;
const CENTER = 50;

/** A point on the gauge's half circle for a fraction 0..1 (left to right). */
export function arcPoint(fraction: number): { x: number; y: number } {
	const clamped = Math.min(1, Math.max(0, fraction));
	const angle = Math.PI * (1 - clamped);
	return { x: CENTER + RADIUS * Math.cos(angle), y: CENTER - RADIUS * Math.sin(angle) };
}

export function arcPath(fraction: number): string {
	const start = arcPoint(0);
	const end = arcPoint(fraction);
	return `M ${start.x.toFixed(2)} ${start.y.toFixed(2)} A ${RADIUS} ${RADIUS} 0 0 1 ${end.x.toFixed(2)} ${end.y.toFixed(2)}`;
}

export function renderGauge(parent: HTMLElement, input: GaugeInput, label: string): SVGSVGElement {
	const ok = input.coverage >= input.threshold;
	const svg = parent.createSvg("svg", {
		cls: "kh-gauge",
		attr: { viewBox: "0 0 100 60", role: "img", "aria-label": label },
	});
	svg.createSvg("path", { cls: "kh-gauge-track", attr: { d: arcPath(1) } });
	if (input.coverage > 0) {
		svg.createSvg("path", { cls: `kh-gauge-value ${ok ? "kh-gauge-ok" : "kh-gauge-low"}`, attr: { d: arcPath(input.coverage) } });
	}
	const inner = arcPoint(input.threshold);
	const outer = { x: CENTER + (inner.x - CENTER) * 1.2, y: CENTER + (inner.y - CENTER) * 1.2 };
	svg.createSvg("line", {
		cls: "kh-gauge-threshold",
		attr: { x1: ((inner.x - CENTER) * 0.8 + CENTER).toFixed(2), y1: ((inner.y - CENTER) * 0.8 + CENTER).toFixed(2), x2: outer.x.toFixed(2), y2: outer.y.toFixed(2) },
	});
	const text = svg.createSvg("text", { cls: "kh-gauge-text", attr: { x: "50", y: "52", "text-anchor": "middle" } });
	text.textContent = `${(input.coverage * 100).toFixed(1)}%`;
	return svg;
}

/** A small line chart of coverage over past audits. */
export function renderTrend(parent: HTMLElement, points: { today: string; coverage: number }[], threshold: number, label: string): SVGSVGElement {
	const width = 200;
	const height = 60;
	const svg = parent.createSvg("svg", { cls: "kh-trend", attr: { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label } });
	const y = (value: number) => (height - 5 - value * (height - 10)).toFixed(2);
	svg.createSvg("line", { cls: "kh-gauge-threshold", attr: { x1: "0", x2: String(width), y1: y(threshold), y2: y(threshold) } });
	if (points.length > 0) {
		const step = points.length > 1 ? width / (points.length - 1) : 0;
		const d = points.map((point, index) => `${index === 0 ? "M" : "L"} ${(index * step).toFixed(2)} ${y(point.coverage)}`).join(" ");
		svg.createSvg("path", { cls: "kh-trend-line", attr: { d } });
	}
	return svg;
}
