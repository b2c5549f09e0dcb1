// The tab's title: the count of games waiting for your move, and "Your
// turn" while the room on screen waits for you and the tab is hidden (so
// it shows in the tab strip).

let waiting = 0;
let yourTurn = false;

function draw() {
  const turn = yourTurn && document.hidden ? 'Your turn · ' : '';
  document.title = `${turn}${waiting ? `(${waiting}) ` : ''}Parlor`;
}

/** Games waiting for a move of yours (the header's badge). */
export function setWaiting(n) {
  waiting = n;
  draw();
}

/** Whether the room on screen waits for your move. */
export function setYourTurn(on) {
  yourTurn = on;
  draw();
}

document.addEventListener('visibilitychange', draw);
