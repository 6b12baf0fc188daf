import { Body, Controller, Get, Post } from '@nestjs/common';

@Controller()
export class HealthController {
  @Get('health')
  health() {
    return { ok: true };
  }
}

/** An ordinary JSON route: Nest still parses its body, the webhook route notwithstanding. */
@Controller('api')
export class NotesController {
  @Post('notes')
  create(@Body() note: { text?: string }) {
    return { saved: note };
  }
}
