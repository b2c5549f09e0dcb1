// The browser tests, one file a theme under suite/, in the order they run.
// Each test gets a fresh browser context (its own local storage, so its
// own resume token) and a page.

import { TESTS as room } from './suite/room.mjs';
import { TESTS as chat } from './suite/chat.mjs';
import { TESTS as reports } from './suite/reports.mjs';
import { TESTS as moderation } from './suite/moderation.mjs';
import { TESTS as games } from './suite/games.mjs';
import { TESTS as watching } from './suite/watching.mjs';
import { TESTS as accounts } from './suite/accounts.mjs';
import { TESTS as matchmaking } from './suite/matchmaking.mjs';
import { TESTS as yourgames } from './suite/yourgames.mjs';
import { TESTS as tabs } from './suite/tabs.mjs';
import { TESTS as look } from './suite/look.mjs';
import { TESTS as sound } from './suite/sound.mjs';
import { TESTS as accessibility } from './suite/accessibility.mjs';
import { TESTS as ratings } from './suite/ratings.mjs';
import { TESTS as tournaments } from './suite/tournaments.mjs';
import { TESTS as eventchat } from './suite/eventchat.mjs';
import { TESTS as ladder } from './suite/ladder.mjs';
import { TESTS as people } from './suite/people.mjs';
import { TESTS as following } from './suite/following.mjs';
import { TESTS as speed } from './suite/speed.mjs';

export const TESTS = {
  ...room,
  ...chat,
  ...reports,
  ...moderation,
  ...games,
  ...watching,
  ...accounts,
  ...matchmaking,
  ...yourgames,
  ...tabs,
  ...look,
  ...sound,
  ...accessibility,
  ...ratings,
  ...tournaments,
  ...eventchat,
  ...ladder,
  ...people,
  ...following,
  ...speed,
};
