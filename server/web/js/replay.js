export function showReplay() { return () => {}; }
