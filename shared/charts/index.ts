/** Charts as inline SVG (Observable Plot), drawn at a phone's width and a screen's. */
export { barsChart, type Chart, drawChart } from "./plot.js";
