"""The calling app's players: `DELETE /v1/app/players/{player}` erases one from every game of the app."""
