export function linePlot() {}
