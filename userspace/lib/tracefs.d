/work/main/userspace/lib/tracefs.o: /work/main/userspace/lib/tracefs.c \
 /usr/include/tracefs/tracefs.h /usr/include/traceevent/event-parse.h \
 /usr/include/traceevent/trace-seq.h \
 /work/main/userspace/include/nanograph.h
/usr/include/tracefs/tracefs.h:
/usr/include/traceevent/event-parse.h:
/usr/include/traceevent/trace-seq.h:
/work/main/userspace/include/nanograph.h:
