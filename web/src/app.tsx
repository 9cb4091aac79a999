// The page's screens. Keep the first path segments in step with `SCREENS` in
// src/http/page.rs, which answers the page for them.
import { LocationProvider, Route, Router } from 'preact-iso';
import { LangProvider } from './i18n';
import { SessionProvider } from './session';
import { Shell } from './screens/Shell';
import { Lobby } from './screens/Lobby';
import { SignIn, SignUp } from './screens/SignIn';
import { NewGame } from './screens/NewGame';
import { Settings } from './screens/Settings';
import { GamePage } from './games/GamePage';
import { NotFound } from './screens/NotFound';
import { VerifyEmail } from './screens/account/VerifyEmail';
import { ResetPassword } from './screens/account/ResetPassword';
import { PlayerProfile } from './players/Profile';
import { Leaderboard } from './players/Leaderboard';
import { Tournaments } from './tournaments/Tournaments';
import { TournamentPage } from './tournaments/TournamentPage';

export function App() {
  return (
    <LangProvider>
      <SessionProvider>
        <LocationProvider>
          <Shell>
            <Router>
              <Route path="/" component={Lobby} />
              <Route path="/signin" component={SignIn} />
              <Route path="/signup" component={SignUp} />
              <Route path="/new" component={NewGame} />
              <Route path="/settings" component={Settings} />
              <Route path="/games/:id" component={GamePage} />
              <Route path="/verify-email" component={VerifyEmail} />
              <Route path="/reset-password" component={ResetPassword} />
              <Route path="/players/:name" component={PlayerProfile} />
              <Route path="/leaderboards" component={Leaderboard} />
              <Route path="/leaderboards/:kind" component={Leaderboard} />
              {/* Tournaments (issue 24): the list with its create form, and one tournament. */}
              <Route path="/tournaments" component={Tournaments} />
              <Route path="/tournaments/:id" component={TournamentPage} />
              <Route default component={NotFound} />
            </Router>
          </Shell>
        </LocationProvider>
      </SessionProvider>
    </LangProvider>
  );
}
