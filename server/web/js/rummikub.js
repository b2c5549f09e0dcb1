export function render(el, u) { el.textContent = JSON.stringify(u.view); }
